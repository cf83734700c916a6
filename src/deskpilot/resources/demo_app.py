"""The bundled demo app: a small Qt form (text fields, a dropdown, checkboxes, radio buttons, a file list, a menu)
that the agent can be shown working on. With `--state FILE` it writes its state as JSON after every change, so
tests and users can see exactly what the agent did.

    python -m deskpilot.resources.demo_app [--state state.json] [--geometry X,Y,W,H] [--frozen "Remember me"]

`--frozen` makes the named check boxes ignore the mouse while looking as usual (a step that cannot take effect).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from deskpilot.core.files import write_atomic
from PySide6.QtWidgets import (QApplication, QButtonGroup, QCheckBox, QComboBox, QGridLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QListWidget, QMainWindow, QPushButton,
                               QRadioButton, QVBoxLayout, QWidget)

FILES = ["Report.txt", "Notes.md", "Budget.xlsx", "Photo.png", "Invoice.pdf", "Slides.odp", "Archive.zip",
         "Backup.tar", "Calendar.ics", "Contacts.csv", "Diagram.svg", "Draft.docx", "Ideas.txt", "Journal.md",
         "Letter.odt", "Minutes.txt", "Plan.md", "Recipe.txt", "Schedule.xlsx", "Todo.txt",
         *(f"Scan-{n:02d}.png" for n in range(1, 21)), "Zebra.txt"]
COLOURS = ["Red", "Green", "Blue", "Yellow"]
SIZES = ["Small", "Medium", "Large"]


class DemoWindow(QMainWindow):
    def __init__(self, state_path: Path | None, frozen: tuple[str, ...] = ()):
        super().__init__()
        self.state_path = state_path
        self.events: list[str] = []
        self.opened: list[str] = []
        self.saved_count = 0
        self.setWindowTitle("deskpilot demo - Contact form")
        self._build_menu()
        self._build_form()
        for box in (self.remember, self.newsletter):
            if box.text() in frozen:
                box.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._shown = False

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("File")
        for name, shortcut, handler in (("New", "Ctrl+N", self.clear_form), ("Save", "Ctrl+S", self.save),
                                        ("Quit", "Ctrl+Q", self.close)):
            action = QAction(name, self)
            action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(lambda _=False, n=name, h=handler: (self._event(f"menu:{n}"), h()))
            file_menu.addAction(action)
        help_menu = self.menuBar().addMenu("Help")
        about = QAction("About", self)
        about.triggered.connect(lambda: self._set_status("deskpilot demo app, version 1"))
        help_menu.addAction(about)

    def _build_form(self) -> None:
        form_box = QGroupBox("Contact")
        grid = QGridLayout(form_box)
        self.full_name, self.email, self.password = QLineEdit(), QLineEdit(), QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.colour = QComboBox()
        self.colour.addItems(COLOURS)
        for row, (label, widget) in enumerate((("Full name", self.full_name), ("Email", self.email),
                                               ("Password", self.password), ("Colour", self.colour))):
            grid.addWidget(QLabel(label), row, 0)
            grid.addWidget(widget, row, 1)
        self.remember = QCheckBox("Remember me")
        self.newsletter = QCheckBox("Subscribe to newsletter")
        grid.addWidget(self.remember, 4, 1)
        grid.addWidget(self.newsletter, 5, 1)
        size_row = QHBoxLayout()
        self.sizes = QButtonGroup(self)
        for name in SIZES:
            radio = QRadioButton(name)
            radio.setObjectName(name)
            self.sizes.addButton(radio)
            size_row.addWidget(radio)
        grid.addWidget(QLabel("Size"), 6, 0)
        grid.addLayout(size_row, 6, 1)

        files_box = QGroupBox("Files")
        files_layout = QVBoxLayout(files_box)
        self.files = QListWidget()
        self.files.addItems(FILES)
        self.files.itemDoubleClicked.connect(lambda item: self._open(item.text()))
        files_layout.addWidget(self.files)

        buttons = QHBoxLayout()
        for name, handler in (("Save", self.save), ("Clear", self.clear_form), ("Delete all", self.delete_all),
                              ("OK", lambda: self._set_status("OK pressed")),
                              ("Cancel", lambda: self._set_status("Cancelled"))):
            button = QPushButton(name)
            button.clicked.connect(lambda _=False, n=name, h=handler: (self._event(f"button:{n}"), h()))
            buttons.addWidget(button)
        self.status = QLabel("Ready")

        panes = QHBoxLayout()
        panes.addWidget(form_box, 3)
        panes.addWidget(files_box, 2)
        root = QVBoxLayout()
        root.addLayout(panes)
        root.addLayout(buttons)
        root.addWidget(self.status)
        central = QWidget()
        central.setLayout(root)
        self.setCentralWidget(central)

        for line in (self.full_name, self.email, self.password):
            line.textChanged.connect(self._save_state)
        self.colour.currentTextChanged.connect(self._save_state)
        for box in (self.remember, self.newsletter):
            box.toggled.connect(self._save_state)
        self.sizes.buttonToggled.connect(self._save_state)
        self.files.currentRowChanged.connect(self._save_state)

    def _event(self, name: str) -> None:
        self.events.append(name)
        self._save_state()

    def _set_status(self, text: str) -> None:
        self.status.setText(text)
        self._save_state()

    def _open(self, name: str) -> None:
        self.opened.append(name)
        self._set_status(f"Opened {name}")

    def save(self) -> None:
        self.saved_count += 1
        self._set_status(f"Saved {self.full_name.text() or 'empty form'}")

    def clear_form(self) -> None:
        for line in (self.full_name, self.email, self.password):
            line.clear()
        self.remember.setChecked(False)
        self.newsletter.setChecked(False)
        self._set_status("Cleared")

    def delete_all(self) -> None:
        self.files.clear()
        self._set_status("All files deleted")

    def state(self) -> dict[str, object]:
        checked = self.sizes.checkedButton()
        current = self.files.currentItem()
        return {
            "full_name": self.full_name.text(), "email": self.email.text(), "password": self.password.text(),
            "colour": self.colour.currentText(), "remember_me": self.remember.isChecked(),
            "newsletter": self.newsletter.isChecked(), "size": checked.objectName() if checked else None,
            "selected_file": current.text() if current else None, "files": self.files.count(),
            "opened": self.opened, "saved": self.saved_count, "status": self.status.text(), "events": self.events,
            "boxes": self.widget_boxes(),
        }

    def widget_boxes(self) -> dict[str, list[int]]:
        """Screen boxes (x0, y0, x1, y1) of the main widgets, so tests can check where grounding pointed."""
        named = {"Full name": self.full_name, "Email": self.email, "Password": self.password, "Colour": self.colour,
                 "Remember me": self.remember, "Subscribe to newsletter": self.newsletter}
        named.update({b.text(): b for b in self.findChildren(QPushButton)})
        boxes = {}
        for name, widget in named.items():
            top_left = widget.mapToGlobal(widget.rect().topLeft())
            boxes[name] = [top_left.x(), top_left.y(), top_left.x() + widget.width(), top_left.y() + widget.height()]
        return boxes

    def mark_shown(self) -> None:
        """The window is mapped and laid out: from now on the state file (with final boxes) is written."""
        self._shown = True
        self._save_state()

    def _save_state(self, *_: object) -> None:
        if self.state_path is None or not getattr(self, "_shown", False):
            return
        write_atomic(self.state_path, json.dumps(self.state()).encode())

    def closeEvent(self, event: object) -> None:  # noqa: N802 - Qt's name
        self._event("closed")
        super().closeEvent(event)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, help="write the app's state as JSON here after every change")
    parser.add_argument("--geometry", default="60,40,900,560", help="X,Y,W,H of the window")
    parser.add_argument("--frozen", default="", help="comma-separated check boxes that ignore the mouse")
    args = parser.parse_args(argv)
    app = QApplication(sys.argv[:1])
    window = DemoWindow(args.state, tuple(name.strip() for name in args.frozen.split(",") if name.strip()))
    x, y, w, h = (int(v) for v in args.geometry.split(","))
    window.setGeometry(x, y, w, h)
    window.show()
    window.activateWindow()
    QTimer.singleShot(200, window.mark_shown)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
