"""A Qt window with a spinner that never stops (a small square turning colour every 30 ms), a button that, 80 ms after
a click, turns a large panel green, and a text field that, 300 ms after typing pauses (as suggestions do), turns the
panel blue: for the screen's settle wait. Writes {"ready": true} to --state."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFrame, QLineEdit, QPushButton, QVBoxLayout, QWidget

SPIN_COLOURS = ("#d00", "#0a0", "#00d", "#aa0")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", type=Path, required=True)
    args = parser.parse_args()
    app = QApplication(sys.argv)
    window = QWidget()
    window.setWindowTitle("Animated")
    window.setGeometry(0, 0, 400, 300)
    window.setStyleSheet("background: white")
    layout = QVBoxLayout(window)
    spinner = QFrame()
    spinner.setFixedSize(12, 12)
    panel = QFrame()
    panel.setFixedSize(300, 150)
    panel.setStyleSheet("background: #888")
    button = QPushButton("Go")
    field = QLineEdit()
    for widget in (spinner, panel, button, field):
        layout.addWidget(widget)
    turn = [0]

    def spin() -> None:
        turn[0] += 1
        spinner.setStyleSheet(f"background: {SPIN_COLOURS[turn[0] % len(SPIN_COLOURS)]}")

    timer = QTimer()
    timer.timeout.connect(spin)
    timer.start(30)
    button.clicked.connect(lambda: QTimer.singleShot(80, lambda: panel.setStyleSheet("background: #0c0")))
    pause = QTimer()
    pause.setSingleShot(True)
    pause.setInterval(300)
    pause.timeout.connect(lambda: panel.setStyleSheet("background: #00c"))
    field.textEdited.connect(lambda _text: pause.start())  # restarted by every key, as a debounced search is
    window.show()
    QTimer.singleShot(300, lambda: args.state.write_text(json.dumps({"ready": True})))
    app.exec()


if __name__ == "__main__":
    main()
