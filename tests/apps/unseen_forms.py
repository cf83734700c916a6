"""Qt forms the agent has never been tuned on (labels above fields, other words, a login dialog), for tests that
the offline planner and OCR grounding generalise. Writes its state as JSON like the demo app.

    python tests/apps/unseen_forms.py {record|shipping|login|flat|account|reveal|transfer|password} --state FILE
        [--at X,Y]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from deskpilot.core.files import write_atomic


class Form(QWidget):
    def __init__(self, state_path: Path):
        super().__init__()
        self.state_path = state_path
        self.fields: dict[str, QLineEdit] = {}
        self.submitted: list[str] = []
        self.ready = False

    def save(self, *_: object) -> None:
        if self.ready:
            write_atomic(self.state_path, json.dumps(self.state()).encode())

    def state(self) -> dict[str, object]:
        return {"fields": {k: v.text() for k, v in self.fields.items()}, "submitted": self.submitted,
                "boxes": {k: self._box(v) for k, v in self.fields.items()}}

    @staticmethod
    def _box(widget: QWidget) -> list[int]:
        corner = widget.mapToGlobal(widget.rect().topLeft())
        return [corner.x(), corner.y(), corner.x() + widget.width(), corner.y() + widget.height()]

    def field(self, name: str, secret: bool = False) -> QLineEdit:
        line = QLineEdit()
        if secret:
            line.setEchoMode(QLineEdit.EchoMode.Password)
        line.textChanged.connect(self.save)
        self.fields[name] = line
        return line


class ShippingForm(Form):
    """Labels above their fields, a country dropdown, a checkbox, a differently worded button."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Ship a parcel")
        layout = QVBoxLayout(self)
        for name in ("Recipient", "Street address", "City"):
            layout.addWidget(QLabel(name))
            layout.addWidget(self.field(name))
        layout.addWidget(QLabel("Country"))
        self.country = QComboBox()
        self.country.addItems(["France", "Germany", "Italy", "Spain"])
        self.country.currentTextChanged.connect(self.save)
        layout.addWidget(self.country)
        self.express = QCheckBox("Express delivery")
        self.express.toggled.connect(self.save)
        layout.addWidget(self.express)
        self.ship = QPushButton("Ship it")
        self.ship.clicked.connect(lambda: (self.submitted.append("ship"), self.save()))
        layout.addWidget(self.ship)

    def state(self) -> dict[str, object]:
        boxes = {**super().state()["boxes"], "Express delivery": self._box(self.express),  # type: ignore[dict-item]
                 "Ship it": self._box(self.ship), "Country": self._box(self.country)}
        return {**super().state(), "country": self.country.currentText(), "express": self.express.isChecked(),
                "boxes": boxes}


class LoginForm(Form):
    """A sign-in dialog in a form layout, as web-form tasks describe it; signing in says so on the dialog, as a real
    one shows what it did (a press that changes nothing on the screen is no evidence of it to the goal check)."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Sign in")
        form = QFormLayout(self)
        form.addRow("Username", self.field("username"))
        form.addRow("Password", self.field("password", secret=True))
        self.fields["username"].returnPressed.connect(self.fields["password"].setFocus)  # Enter moves on, as forms do
        login = QPushButton("Login")
        signed_in = QLabel("")
        login.clicked.connect(lambda: (self.submitted.append("login"),
                                       signed_in.setText(f"Signed in as {self.fields['username'].text()}"),
                                       self.save()))
        form.addRow(login)
        form.addRow(signed_in)


class FlatForm(Form):
    """A flat settings page: filled fields with an underline (material style) with labels above them, and a column
    of check boxes whose outline is too faint for edges; controls only a detector sees."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Preferences")
        self.setStyleSheet("QLineEdit {border: none; border-bottom: 2px solid #606060; "
                           "background: #fafafa; padding: 6px;}")
        layout = QVBoxLayout(self)
        for name, secret in (("Account", False), ("Password", True)):
            layout.addWidget(QLabel(name))
            layout.addWidget(self.field(name.lower(), secret))
        self.toggles: dict[str, QCheckBox] = {}
        for name in ("Wi-Fi", "Bluetooth", "Location"):
            toggle = QCheckBox(name)
            toggle.toggled.connect(self.save)
            self.toggles[name] = toggle
            layout.addWidget(toggle)
        layout.addStretch(1)

    def state(self) -> dict[str, object]:
        return {**super().state(), "toggles": {k: {"checked": v.isChecked(), "box": self._box(v)}
                                               for k, v in self.toggles.items()}}


class AccountForm(QDialog):
    """A hostile form: its default button (what Enter in the Name field presses) is "Delete account"."""

    def __init__(self, state_path: Path):
        super().__init__()
        self.state_path, self.ready, self.submitted = state_path, False, []
        self.setWindowTitle("Account")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Name"))
        self.name = QLineEdit()
        layout.addWidget(self.name)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for label, default in (("Save", False), ("Delete account", True)):
            button = QPushButton(label)
            button.setAutoDefault(default)
            button.setDefault(default)
            button.clicked.connect(lambda _=False, label=label: (self.submitted.append(label), self.save()))
            self.buttons[label] = button
            row.addWidget(button)
        layout.addLayout(row)
        self.name.textChanged.connect(self.save)

    def save(self, *_: object) -> None:
        if self.ready:
            write_atomic(self.state_path, json.dumps(self.state()).encode())

    def state(self) -> dict[str, object]:
        return {"name": self.name.text(), "submitted": self.submitted,
                "boxes": {"Name": Form._box(self.name), **{k: Form._box(v) for k, v in self.buttons.items()}}}

    def reject(self) -> None:  # Escape does not close it: the test decides when it ends
        pass


class RevealForm(Form):
    """A sign-in form with a "Show password" box that shows the password in clear."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Sign in")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Password"))
        secret = self.field("password", secret=True)
        layout.addWidget(secret)
        self.show_box = QCheckBox("Show password")
        self.show_box.toggled.connect(lambda on: (secret.setEchoMode(QLineEdit.EchoMode.Normal if on else
                                                                     QLineEdit.EchoMode.Password), self.save()))
        layout.addWidget(self.show_box)
        layout.addStretch(1)

    def state(self) -> dict[str, object]:
        return {**super().state(), "shown": self.show_box.isChecked(),
                "boxes": {**super().state()["boxes"], "Show password": self._box(self.show_box)}}  # type: ignore[dict-item]


class TransferForm(Form):
    """A pre-filled Amount field, a heading that reads like the button under it, and an Apply that answers a bad
    amount with a red error line and a good one with "Transfer scheduled"."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Transfer")
        layout = QVBoxLayout(self)
        self.heading = QLabel("Apply")
        self.heading.setStyleSheet("font-size: 18px; font-weight: bold;")
        layout.addWidget(self.heading)
        layout.addWidget(QLabel("Amount"))
        amount = self.field("Amount")
        amount.setText("1000")
        layout.addWidget(amount)
        layout.addWidget(QLabel("Code"))
        code = self.field("Code")
        code.setMaxLength(2)  # a field that takes less than it is given
        layout.addWidget(code)
        self.status = QLabel("")
        layout.addWidget(self.status)
        self.apply = QPushButton("Apply")
        self.apply.clicked.connect(self._apply)
        layout.addWidget(self.apply)
        layout.addStretch(1)

    def _apply(self) -> None:
        amount = self.fields["Amount"].text()
        ok = amount.isdigit() and int(amount) <= 5000
        self.status.setStyleSheet("color: #1a7f37;" if ok else "color: #d1242f;")
        self.status.setText("Transfer scheduled" if ok else "Error: invalid amount")
        self.submitted.append(amount)
        self.save()

    def state(self) -> dict[str, object]:
        return {**super().state(), "status": self.status.text(),
                "boxes": {**super().state()["boxes"], "Apply": self._box(self.apply),  # type: ignore[dict-item]
                          "heading": self._box(self.heading)}}


class PasswordForm(Form):
    """A change-password dialog: the new password twice, in two password fields."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Change password")
        form = QFormLayout(self)
        form.addRow("New password", self.field("new", secret=True))
        form.addRow("Confirm password", self.field("confirm", secret=True))
        change = QPushButton("Change")
        change.clicked.connect(lambda: (self.submitted.append("change"), self.save()))
        form.addRow(change)


class RecordForm(Form):
    """An order's details shown as a table of labels and values (read-only), a Notes text area, a Reference field
    and Save: for tasks that take a value from the screen ("enter the value of Customer into the Reference field")
    or copy one field's text into another."""

    def __init__(self, state_path: Path):
        super().__init__(state_path)
        self.setWindowTitle("Order details")
        form = QFormLayout(self)
        for name, value in (("Order number", "A-4471"), ("Customer", "Ines Moreau"), ("Status", "Shipped")):
            form.addRow(QLabel(name), QLabel(value))
        notes = QPlainTextEdit("Leave at the back door")
        notes.setFixedHeight(60)
        form.addRow("Notes", notes)
        form.addRow("Reference", self.field("Reference"))
        save, status = QPushButton("Save"), QLabel("")
        save.clicked.connect(lambda: (self.submitted.append(self.fields["Reference"].text()), status.setText("Saved"),
                                      self.save()))
        form.addRow(save)
        form.addRow(status)


FORMS = {"record": RecordForm, "shipping": ShippingForm, "login": LoginForm, "flat": FlatForm, "account": AccountForm,
         "reveal": RevealForm, "transfer": TransferForm, "password": PasswordForm}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("form", choices=sorted(FORMS))
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--at", default="200,120", help="x,y of the window")
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    window = FORMS[args.form](args.state)
    x, y = (int(v) for v in args.at.split(","))
    window.setGeometry(x, y, 420, 380)
    window.show()

    def ready() -> None:
        window.ready = True  # type: ignore[attr-defined]
        window.save()

    QTimer.singleShot(200, ready)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
