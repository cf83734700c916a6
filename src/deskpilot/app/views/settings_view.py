"""The Settings view: the same pydantic settings the CLI reads (planner, endpoint, model, safety policy, hotkeys,
episode folder, the detector), saved to the TOML settings file; the API key goes to the OS keyring, never to a file.
Then the actions a person allowed for good when asked (core.allowances), each revocable; below them, `deskpilot
doctor`'s report on this machine, checked in a background thread."""

from __future__ import annotations

import atexit
from typing import get_args

from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QPlainTextEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from deskpilot.core.allowances import Allowances
from deskpilot.core.errors import DeskpilotError
from deskpilot.core.safety import ConfirmMode
from deskpilot.core.settings import (PLANNERS, ModelDevice, PlanMode, Settings, default_config_file,
                                     save_settings, store_api_key)
from deskpilot.planner.families import FAMILIES

CHOICES = {"planner": PLANNERS, "plan_mode": get_args(PlanMode), "confirm": get_args(ConfirmMode),
           "family": ("", *FAMILIES), "detector_device": get_args(ModelDevice),
           "ocr_device": get_args(ModelDevice)}
RUNNING_CHECKS: set[QThread] = set()
atexit.register(lambda: [check.wait(30_000) for check in list(RUNNING_CHECKS)])  # Qt aborts on a running QThread
TEXTS = ("base_url", "model", "episodes_dir", "stop_hotkey", "record_stop_hotkey", "record_pause_hotkey",
         "detector_model", "text_recognizer_model")


class SettingsView(QWidget):
    status = Signal(str)
    saved = Signal(object)  # the new Settings

    def __init__(self, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.fields: dict[str, QWidget] = {}
        form = QFormLayout()
        for name, options in CHOICES.items():
            combo = QComboBox()
            combo.addItems([o or "(guess from the model name)" for o in options])
            combo.setCurrentIndex(options.index(getattr(settings, name) or ""))
            self.fields[name] = combo
            form.addRow(self._label(name), combo)
        for name in TEXTS:
            value = getattr(settings, name)
            self.fields[name] = QLineEdit("" if value is None else str(value))
            form.addRow(self._label(name), self.fields[name])
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 1000)
        self.max_steps.setValue(settings.max_steps)
        form.addRow("Max steps", self.max_steps)
        self.detector = QCheckBox("find controls with the UI-element detector, besides OCR")
        self.detector.setChecked(settings.detector)
        form.addRow("Detector", self.detector)
        self.accessibility = QCheckBox("read the accessibility tree where an app exposes it (AT-SPI)")
        self.accessibility.setChecked(settings.accessibility)
        form.addRow("Accessibility", self.accessibility)
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("stored in the OS keyring; leave empty to keep the current one")
        form.addRow("API key", self.api_key)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.doctor_button = QPushButton("Check this machine")
        self.doctor_button.clicked.connect(self.run_doctor)
        self.doctor_report = QPlainTextEdit()
        self.doctor_report.setReadOnly(True)
        self.doctor_report.setPlaceholderText("what works on this machine (deskpilot doctor)")
        self._doctor: DoctorWorker | None = None
        self.allowed = QListWidget()
        self.allowed.setMaximumHeight(90)
        self.revoke_button = QPushButton("Revoke")
        self.revoke_button.clicked.connect(self.revoke)
        self.show_allowances()
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.save_button)
        column.addWidget(QLabel("Allowed without asking (chosen with \"Always allow this in this app\")"))
        allowed_row = QHBoxLayout()
        allowed_row.addWidget(self.allowed, 1)
        allowed_row.addWidget(self.revoke_button)
        column.addLayout(allowed_row)
        column.addWidget(QLabel("This machine"))
        column.addWidget(self.doctor_report, 1)
        column.addWidget(self.doctor_button)

    def show_allowances(self) -> None:
        self.allowed.clear()
        self._allowances = Allowances().all()
        for allowance in self._allowances:
            self.allowed.addItem(allowance.describe())
        if not self._allowances:
            self.allowed.addItem("(none: every risky action asks)")
        self.revoke_button.setEnabled(bool(self._allowances))

    def revoke(self) -> None:
        row = self.allowed.currentRow()
        if 0 <= row < len(self._allowances):
            allowance = self._allowances[row]
            Allowances().revoke(allowance)
            self.status.emit(f"revoked: {allowance.describe()} asks again")
            self.show_allowances()

    def run_doctor(self) -> None:
        """Check the machine in the background; the report replaces the text when it is ready."""
        if self._doctor is not None:
            return
        self.doctor_report.setPlainText("checking...")
        self.doctor_button.setEnabled(False)
        self._doctor = DoctorWorker()
        self._doctor.done.connect(self._show_doctor)
        RUNNING_CHECKS.add(self._doctor)  # outlives this view if the window closes first (Qt aborts otherwise)
        self._doctor.finished.connect(lambda worker=self._doctor: RUNNING_CHECKS.discard(worker))
        self._doctor.start()

    def _show_doctor(self, lines: list) -> None:
        self.doctor_report.setPlainText("\n".join(lines))
        self.doctor_button.setEnabled(True)
        self._doctor = None

    @staticmethod
    def _label(name: str) -> str:
        return name.replace("_", " ").capitalize()

    def values(self) -> dict[str, object]:
        values: dict[str, object] = {"max_steps": self.max_steps.value(), "detector": self.detector.isChecked(),
                                     "accessibility": self.accessibility.isChecked()}
        for name, options in CHOICES.items():
            values[name] = options[self.fields[name].currentIndex()] or None  # type: ignore[attr-defined]
        for name in TEXTS:
            values[name] = self.fields[name].text().strip() or None  # type: ignore[attr-defined]
        return values

    def save(self) -> None:
        try:
            settings = save_settings(self.values())
            if self.api_key.text():
                store_api_key(self.api_key.text())
                self.api_key.clear()
        except DeskpilotError as exc:
            self.status.emit(str(exc))
            return
        self.status.emit(f"saved to {default_config_file()}")
        self.saved.emit(settings)


class DoctorWorker(QThread):
    """Runs `deskpilot doctor`'s checks off the window's thread."""

    done = Signal(list)  # the report's lines

    def run(self) -> None:
        from deskpilot.app.doctor import diagnose

        self.done.emit(diagnose().lines())
