"""A window of known targets for `deskpilot doctor --calibrate`: it draws five crosshairs (the corners, inset, and
the centre), and writes to a state file where each one is and where every press of the mouse landed, both in the
screen's device pixels (a toolkit's scale factor taken out), so the calibrator can tell how far a click it aimed at
a target landed from it.

    python -m deskpilot.resources.calibration_targets --state FILE --geometry x,y,w,h
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QScreen
from PySide6.QtWidgets import QApplication, QWidget

INSET = 40  # logical pixels between the window's edge and a corner target
ARM = 12  # half the length of a crosshair's arms


class Targets(QWidget):
    def __init__(self, state: Path):
        super().__init__(None, Qt.WindowType.FramelessWindowHint)
        self.setWindowTitle("deskpilot calibration")
        self.state = state
        self.presses: list[list[int]] = []

    def points(self) -> list[QPoint]:
        w, h = self.width(), self.height()
        return [QPoint(INSET, INSET), QPoint(w - INSET, INSET), QPoint(w // 2, h // 2), QPoint(INSET, h - INSET),
                QPoint(w - INSET, h - INSET)]

    def device(self, point: QPointF) -> list[int]:
        """A global point in the screen's device pixels. Qt keeps each screen's top left where it is on the desktop
        and scales only what lies beyond it, so a monitor right of another is not moved by the scale factor."""
        screen = self.screen()
        origin, ratio = screen.geometry().topLeft(), screen.devicePixelRatio()
        return [round(origin.x() + (point.x() - origin.x()) * ratio),
                round(origin.y() + (point.y() - origin.y()) * ratio)]

    def save(self) -> None:
        targets = [self.device(QPointF(self.mapToGlobal(p))) for p in self.points()]
        self.state.write_text(json.dumps({"targets": targets, "presses": self.presses,
                                          "scale": self.devicePixelRatioF()}))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        painter.setPen(QPen(QColor("black"), 2))
        for p in self.points():
            painter.drawLine(p.x() - ARM, p.y(), p.x() + ARM, p.y())
            painter.drawLine(p.x(), p.y() - ARM, p.x(), p.y() + ARM)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        self.presses.append(self.device(event.globalPosition()))
        self.save()


def _device_geometry(screen: QScreen) -> QRect:
    """Where a screen is in device pixels: its top left, and its logical size times its scale."""
    geometry, ratio = screen.geometry(), screen.devicePixelRatio()
    return QRect(geometry.topLeft(), QSize(round(geometry.width() * ratio), round(geometry.height() * ratio)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--geometry", required=True, help="x,y,w,h in the desktop's logical pixels")
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    x, y, w, h = (int(v) for v in args.geometry.split(","))
    window = Targets(args.state)
    screen = next((s for s in app.screens() if _device_geometry(s).contains(x, y)), app.primaryScreen())
    origin, ratio = screen.geometry().topLeft(), screen.devicePixelRatio() or 1.0
    window.setGeometry(round(origin.x() + (x - origin.x()) / ratio), round(origin.y() + (y - origin.y()) / ratio),
                       round(w / ratio), round(h / ratio))
    window.show()
    QTimer.singleShot(300, window.save)  # placed and drawn: where the targets are
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
