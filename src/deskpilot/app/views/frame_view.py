"""A widget that shows an RGB screenshot scaled to fit, keeping its aspect ratio (overlays are drawn into the
image beforehand with grounding.annotate, the same drawing the CLI writes to annotated.png)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


def to_qimage(image_rgb: np.ndarray) -> QImage:
    image_rgb = np.ascontiguousarray(image_rgb)
    height, width = image_rgb.shape[:2]
    return QImage(image_rgb.data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()


class FrameView(QLabel):
    def __init__(self, placeholder: str = "", parent: QWidget | None = None):
        super().__init__(placeholder, parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.setMinimumSize(QSize(160, 100))
        self.setStyleSheet("background: #202124; color: #9aa0a6;")
        self._pixmap: QPixmap | None = None

    def show_image(self, image_rgb: np.ndarray | None) -> None:
        self._pixmap = None if image_rgb is None else QPixmap.fromImage(to_qimage(image_rgb))
        self._rescale()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._rescale()

    def _rescale(self) -> None:
        if self._pixmap is None:
            self.setPixmap(QPixmap())
            return
        self.setPixmap(self._pixmap.scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))
