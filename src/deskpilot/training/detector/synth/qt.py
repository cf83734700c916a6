"""Random Qt windows (forms, dialogs, toolbars, tab widgets, lists, menu bars) rendered offscreen with
QWidget.grab(), in the Fusion and Windows styles, light and dark palettes, random fonts and sizes; each control's
box comes from its geometry (the indicator only for check boxes and radio buttons, each tab's and item's own
rectangle)."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from deskpilot.core.geometry import Box

from .words import Theme, label, random_theme, sentence, words

ICONS = ("SP_DialogSaveButton", "SP_DialogOpenButton", "SP_DirHomeIcon", "SP_TrashIcon", "SP_BrowserReload",
         "SP_ArrowBack", "SP_ArrowForward", "SP_FileIcon", "SP_DirIcon", "SP_DialogCloseButton", "SP_MediaPlay",
         "SP_FileDialogNewFolder", "SP_DialogHelpButton", "SP_ComputerIcon", "SP_ArrowUp", "SP_ArrowDown")


def qt_application() -> Any:
    """The running QApplication, or a new offscreen one (nothing is ever shown on a real screen)."""
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        qInstallMessageHandler(_quiet_offscreen)
        app = QApplication([])
    return app


def _quiet_offscreen(kind: Any, context: Any, message: str) -> None:
    """Qt's messages on stderr, less the offscreen plugin's note on every window it cannot resize."""
    if "propagateSizeHints" not in message:
        print(message, file=sys.stderr)


class QtRenderer:
    """Draws random Qt windows; `render` returns (RGB image, [(box, class name)])."""

    def __init__(self) -> None:
        from PySide6.QtWidgets import QStyleFactory

        self.app = qt_application()
        self.styles = [QStyleFactory.create(name) for name in QStyleFactory.keys()]
        for style in self.styles:
            style.setParent(self.app)  # Qt owns them: freed with the application, not after it

    def render(self, rng: random.Random, width: int, height: int) -> tuple[np.ndarray, list[tuple[Box, str]]]:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QWidget

        theme = random_theme(rng)
        window = QWidget()
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        window.setStyle(rng.choice(self.styles))
        marks: list[tuple[Any, str, Callable[[], Box] | None]] = []
        _build(window, rng, theme, marks)
        window.resize(width, height)
        window.show()
        self.app.processEvents()
        image = _rgb(window.grab())
        frame = Box(0, 0, image.shape[1], image.shape[0])
        boxes: list[tuple[Box, str]] = []
        for widget, name, local_box in marks:
            if not widget.isVisibleTo(window):
                continue
            own = Box(0, 0, widget.width(), widget.height())
            box = local_box() if local_box else own
            origin = widget.mapTo(window, widget.rect().topLeft())
            # Only what shows: a list's items scrolled out of its viewport, tabs past the bar's end are left out.
            clipped = box.clipped(own).shifted(origin.x(), origin.y()).clipped(frame)
            box = box.shifted(origin.x(), origin.y())
            if clipped.width >= 3 and clipped.height >= 3 and clipped.area >= 0.6 * box.area:
                boxes.append((clipped, name))
        window.close()
        window.deleteLater()
        self.app.processEvents()
        return image, boxes

    def close(self) -> None:
        """Nothing to release: the windows are gone after each render."""


def _rgb(pixmap: Any) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = pixmap.toImage().convertToFormat(QImage.Format.Format_RGB888)
    array = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return array[:, :image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def _rect_box(rect: Any) -> Box:
    return Box(rect.x(), rect.y(), rect.x() + rect.width(), rect.y() + rect.height())


def _palette(theme: Theme) -> Any:
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    role = QPalette.ColorRole
    for name, colour in ((role.Window, theme.background), (role.Base, theme.surface),
                         (role.AlternateBase, theme.background), (role.Button, theme.surface),
                         (role.WindowText, theme.text), (role.Text, theme.text), (role.ButtonText, theme.text),
                         (role.Highlight, theme.accent), (role.HighlightedText, theme.on_accent),
                         (role.Link, theme.link), (role.Mid, theme.border), (role.Dark, theme.border)):
        palette.setColor(name, QColor(colour))
    return palette


def _indicator(widget: Any, element: Any) -> Callable[[], Box]:
    """The check box square / radio circle of `widget`, from its style."""
    from PySide6.QtWidgets import QStyleOptionButton

    def box() -> Box:
        option = QStyleOptionButton()
        widget.initStyleOption(option)
        return _rect_box(widget.style().subElementRect(element, option, widget))

    return box


def _build(window: Any, rng: random.Random, theme: Theme, marks: list) -> None:
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QVBoxLayout

    window.setPalette(_palette(theme))
    window.setAutoFillBackground(True)
    window.setFont(QFont(theme.font, max(7, round(theme.size * 0.75))))
    if rng.random() < 0.35:
        window.setStyleSheet(_stylesheet(theme, rng))
    outer = QVBoxLayout(window)
    outer.setContentsMargins(*(rng.randint(4, 24) for _ in range(4)))
    outer.setSpacing(rng.randint(4, 16))
    if rng.random() < 0.4:
        _menu_bar(outer, rng, marks)
    builders = (_form, _toggles, _buttons, _toolbar, _tabs, _list, _slider, _links)
    for builder in rng.sample(builders, rng.randint(3, 6)):
        builder(outer, rng, marks)
    outer.addStretch(1)


def _stylesheet(theme: Theme, rng: random.Random) -> str:
    radius = rng.choice((0, 3, 6, 10))
    return (f"QPushButton {{background:{rng.choice((theme.accent, theme.surface))}; color:{theme.text}; "
            f"border:1px solid {theme.border}; border-radius:{radius}px; padding:{rng.randint(3, 9)}px "
            f"{rng.randint(8, 20)}px;}} QLineEdit, QComboBox {{border:1px solid {theme.border}; "
            f"border-radius:{radius}px; padding:{rng.randint(2, 7)}px; background:{theme.surface};}}")


def _menu_bar(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QMenuBar

    bar = QMenuBar()
    for _ in range(rng.randint(2, 6)):
        action = bar.addMenu(words(rng, 1).title()).menuAction()
        marks.append((bar, "menu_item", lambda a=action, b=bar: _rect_box(b.actionGeometry(a))))
    layout.addWidget(bar)


def _form(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QSpinBox, QTextEdit

    form = QFormLayout()
    form.setVerticalSpacing(rng.randint(3, 12))
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        if kind < 0.55:
            field: Any = QLineEdit(words(rng, rng.randint(1, 3)) if rng.random() < 0.4 else "")
            if rng.random() < 0.3:
                field.setPlaceholderText(label(rng, 1, 2))
            if rng.random() < 0.2:
                field.setEchoMode(QLineEdit.EchoMode.Password)
                field.setText(words(rng, 1))
            name = "input"
        elif kind < 0.8:
            field = QComboBox()
            field.addItems([label(rng, 1, 3) for _ in range(rng.randint(2, 5))])
            field.setEditable(rng.random() < 0.2)
            name = "dropdown"
        elif kind < 0.9:
            field = QSpinBox()
            field.setValue(rng.randint(0, 99))
            name = "input"
        else:
            field = QTextEdit(sentence(rng) if rng.random() < 0.5 else "")
            field.setFixedHeight(rng.randint(40, 110))
            name = "input"
        if rng.random() < 0.5:
            field.setFixedWidth(rng.randint(80, 360))
        field.setMinimumHeight(rng.randint(18, 34))
        form.addRow(label(rng, 1, 2) + rng.choice((":", "")), field)
        marks.append((field, name, None))
    layout.addLayout(form)


def _toggles(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QCheckBox, QGroupBox, QRadioButton, QStyle, QVBoxLayout

    group = QGroupBox(label(rng, 1, 3)) if rng.random() < 0.5 else None
    inner = QVBoxLayout(group) if group is not None else QVBoxLayout()
    radio = rng.random() < 0.5
    for _ in range(rng.randint(1, 5)):
        widget: Any = (QRadioButton if radio else QCheckBox)(label(rng, 1, 3))
        widget.setChecked(rng.random() < 0.35)
        element = QStyle.SubElement.SE_RadioButtonIndicator if radio else QStyle.SubElement.SE_CheckBoxIndicator
        marks.append((widget, "radio" if radio else "checkbox", _indicator(widget, element)))
        inner.addWidget(widget)
    if group is not None:
        layout.addWidget(group)
    else:
        layout.addLayout(inner)


def _row(layout: Any, widgets: list, kind: str, marks: list, spacing: int | None = None,
         right_aligned: bool = False) -> None:
    """Lay `widgets` out side by side on a new row of `layout`, each marked as `kind`."""
    from PySide6.QtWidgets import QHBoxLayout

    row = QHBoxLayout()
    if spacing is not None:
        row.setSpacing(spacing)
    if right_aligned:
        row.addStretch(1)
    for widget in widgets:
        row.addWidget(widget)
        marks.append((widget, kind, None))
    row.addStretch(1)
    layout.addLayout(row)


def _buttons(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QPushButton

    right_aligned = rng.random() < 0.5
    buttons = []
    for _ in range(rng.randint(1, 4)):
        button = QPushButton(label(rng, 1, 2))
        button.setMinimumHeight(rng.randint(20, 40))
        buttons.append(button)
    _row(layout, buttons, "button", marks, right_aligned=right_aligned)


def _toolbar(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QStyle, QToolButton

    spacing = rng.randint(0, 8)
    size = rng.randint(14, 32)
    buttons = []
    for name in rng.sample(ICONS, rng.randint(2, 8)):
        button = QToolButton()
        button.setIcon(button.style().standardIcon(getattr(QStyle.StandardPixmap, name)))
        button.setIconSize(QSize(size, size))
        button.setAutoRaise(rng.random() < 0.6)
        buttons.append(button)
    _row(layout, buttons, "icon", marks, spacing)


def _tabs(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QLabel, QTabWidget

    tabs = QTabWidget()
    for _ in range(rng.randint(2, 6)):
        tabs.addTab(QLabel(sentence(rng)), label(rng, 1, 2))
    tabs.setCurrentIndex(rng.randrange(tabs.count()))
    bar = tabs.tabBar()
    for index in range(tabs.count()):
        marks.append((bar, "tab", lambda i=index, b=bar: _rect_box(b.tabRect(i))))
    tabs.setMinimumHeight(rng.randint(60, 140))
    layout.addWidget(tabs)


def _list(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QListWidget

    widget = QListWidget()
    widget.addItems([label(rng, 1, 3) for _ in range(rng.randint(2, 8))])
    widget.setCurrentRow(rng.randrange(widget.count()))
    widget.setFixedWidth(rng.randint(120, 320))
    widget.setFixedHeight(rng.randint(60, 180))
    viewport = widget.viewport()
    for row in range(widget.count()):
        item = widget.item(row)
        marks.append((viewport, "list_item", lambda it=item, w=widget: _rect_box(w.visualItemRect(it))))
    layout.addWidget(widget)


def _slider(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider

    row = QHBoxLayout()
    row.addWidget(QLabel(label(rng, 1, 2)))
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setValue(rng.randint(0, 99))
    slider.setFixedWidth(rng.randint(90, 300))
    row.addWidget(slider)
    row.addStretch(1)
    marks.append((slider, "slider", None))
    layout.addLayout(row)


def _links(layout: Any, rng: random.Random, marks: list) -> None:
    from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy

    row = QHBoxLayout()
    row.addWidget(QLabel(sentence(rng)))
    for _ in range(rng.randint(1, 3)):
        link = QLabel(f'<a href="#">{words(rng, rng.randint(1, 2))}</a>')
        link.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        link.setContentsMargins(0, 0, 0, 0)
        row.addWidget(link)
        marks.append((link, "link", None))
    row.addStretch(1)
    layout.addLayout(row)
