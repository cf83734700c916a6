"""The synthetic form in Qt (PySide6): `python qt_form.py spec.json state.json`."""

import json
import os
import sys

from PySide6.QtWidgets import (QApplication, QButtonGroup, QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout,
                               QLabel, QLineEdit, QListWidget, QMenuBar, QPushButton, QRadioButton, QVBoxLayout,
                               QWidget)


def main() -> None:
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    state_path = sys.argv[2]
    state = {"pressed": []}
    app = QApplication(["qtform"])  # the window class the suite waits for
    window = QWidget()
    window.setWindowTitle(spec["title"])
    form = QFormLayout()

    def save() -> None:
        with open(state_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(state_path + ".tmp", state_path)

    def setter(label):
        def set_value(value) -> None:
            state[label] = value
            save()
        return set_value

    for control in spec["controls"]:
        label, kind = control["label"], control["kind"]
        state[label] = control["initial"]
        if kind == "field":
            widget = QLineEdit(control["initial"])
            widget.textChanged.connect(setter(label))
        elif kind == "dropdown":
            widget = QComboBox()
            widget.addItems(control["options"])
            widget.setCurrentText(control["initial"])
            widget.currentTextChanged.connect(setter(label))
        elif kind == "checkbox":
            widget = QCheckBox(label)
            widget.setChecked(control["initial"])
            widget.toggled.connect(setter(label))
            form.addRow("", widget)
            continue
        else:
            widget = QWidget()
            row = QHBoxLayout(widget)
            group = QButtonGroup(widget)
            for option in control["options"]:
                radio = QRadioButton(option)
                radio.setChecked(option == control["initial"])
                radio.toggled.connect(lambda on, o=option, s=setter(label): on and s(o))
                group.addButton(radio)
                row.addWidget(radio)
        form.addRow(QLabel(label), widget)
    buttons = QHBoxLayout()
    status = QLabel("Ready")
    for name in spec["buttons"]:
        button = QPushButton(name)

        def pressed(_=False, n=name) -> None:
            state["pressed"].append(n)
            status.setText(f"{n} done")
            save()
        button.clicked.connect(pressed)
        buttons.addWidget(button)
    root = QVBoxLayout(window)
    if spec.get("menu"):
        bar = QMenuBar()
        for name in spec["menu"]:
            bar.addMenu(name).addAction("About")
        root.setMenuBar(bar)
    body = QHBoxLayout()
    if spec.get("grouped"):
        box = QGroupBox(spec["title"])
        box.setLayout(form)
        body.addWidget(box, 3)
    else:
        body.addLayout(form, 3)
    if spec.get("side_list"):
        items = QListWidget()
        items.addItems(spec["side_list"])
        body.addWidget(items, 2)
    root.addLayout(body)
    root.addLayout(buttons)
    root.addWidget(status)
    width = 900 if spec.get("side_list") else 640
    window.setGeometry(60, 40, width, 90 + 48 * (len(spec["controls"]) + 2))
    save()
    window.show()
    sys.exit(app.exec())


if __name__ == "__main__":
    main()
