"""The question the Run view asks before a risky action: the action in words, why it is risky, a picture of what it
acts on with the point ringed; Allow once, Deny (the default, also Escape), or Always allow this in this app (a
click on the same control in the same application, remembered in core.allowances; never typing or keys)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from deskpilot.core.allowances import Allowance, allowance_for
from deskpilot.core.safety import Confirmation

from .frame_view import to_qimage

TEXT_WIDTH = 460  # pixels: the question reads as sentences, not a column of single words


class ConfirmDialog(QDialog):
    """`answer` after exec(): "once", "deny" or "always"; `allowance` is what "always" remembers."""

    def __init__(self, request: Confirmation, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("deskpilot: allow this action?")
        self.answer = "deny"
        self.allowance: Allowance | None = allowance_for(request)
        action = QLabel(request.action.redacted().describe() + (f" on {request.under!r}" if request.under else ""))
        reason = QLabel(f"Why it asks: {request.reason}")
        where = QLabel(f"In: {request.app}" if request.app else "In: an application it cannot name")
        for label in (action, reason, where):
            label.setTextFormat(Qt.TextFormat.PlainText)  # a model's or a page's words are never rich text
            label.setWordWrap(True)
            label.setMinimumWidth(TEXT_WIDTH)
        font = action.font()
        font.setBold(True)
        action.setFont(font)
        self.action_text, self.reason_text = action, reason
        self.picture = QLabel()
        if request.crop is not None and request.crop.size:
            self.picture.setPixmap(QPixmap.fromImage(to_qimage(request.crop)))
        self.once = QPushButton("Allow once")
        self.deny = QPushButton("Deny")
        self.always = QPushButton("Always allow this in this app")
        self.always.setEnabled(self.allowance is not None)
        self.always.setToolTip(f"never ask again for a {self.allowance.describe()}; revoke it in Settings"
                               if self.allowance else "only a click on a named control in a named application can "
                               "be allowed for good; typing and keys always ask")
        self.deny.setDefault(True)
        self.deny.setAutoDefault(True)
        self.once.setAutoDefault(False)
        self.always.setAutoDefault(False)
        for button, answer in ((self.once, "once"), (self.deny, "deny"), (self.always, "always")):
            button.clicked.connect(lambda _=False, a=answer: self._answered(a))
        buttons = QHBoxLayout()
        buttons.addWidget(self.always)
        buttons.addStretch(1)
        buttons.addWidget(self.once)
        buttons.addWidget(self.deny)
        column = QVBoxLayout(self)
        for widget in (action, reason, where, self.picture):
            column.addWidget(widget)
        column.addLayout(buttons)
        self.deny.setFocus()

    def _answered(self, answer: str) -> None:  # Escape or closing the window leaves "deny"
        self.answer = answer
        (self.reject if answer == "deny" else self.accept)()
