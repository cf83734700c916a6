"""Building the grounder the settings ask for: OCR, with the UI-element detector merged in when it is enabled, behind
the accessibility tree when it is enabled and the platform has one (Linux with AT-SPI)."""

from __future__ import annotations

import sys

from deskpilot.core.settings import Settings

from .accessible_grounder import AccessibleGrounder
from .ocr_grounder import OcrGrounder


def build_grounder(settings: Settings) -> OcrGrounder | AccessibleGrounder:
    from .detector import UiDetector
    from .ocr import OcrEngine

    detector = UiDetector(settings.detector_model, settings.detector_device) if settings.detector else None
    pixels = OcrGrounder(OcrEngine(threads=settings.ocr_threads, device=settings.ocr_device), detector=detector)
    if not (settings.accessibility and sys.platform.startswith("linux")):
        return pixels
    from .accessibility import AccessibilityTree

    return AccessibleGrounder(pixels, AccessibilityTree())
