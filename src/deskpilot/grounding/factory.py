"""Building the OCR engine and the grounder the settings ask for: OCR (deskpilot's text-line detector, and its
text recogniser first, when enabled), with the UI-element detector merged in when it is enabled, behind the
accessibility tree when it is enabled and the platform has one (Linux with AT-SPI)."""

from __future__ import annotations

import sys

from deskpilot.core.settings import Settings

from .accessible_grounder import AccessibleGrounder
from .ocr import OcrEngine
from .ocr_grounder import OcrGrounder


def build_ocr(settings: Settings, threads: int | None = None) -> OcrEngine:
    """The OCR engine the settings ask for (`threads` overrides ocr_threads, e.g. 1 beside a busy agent)."""
    from . import text_detector, text_recognizer

    recognizer = (settings.text_recognizer_model or text_recognizer.bundled_model()) \
        if settings.text_recognizer else None
    lines = (settings.text_detector_model or text_detector.bundled_model()) if settings.text_detector else None
    return OcrEngine(threads=settings.ocr_threads if threads is None else threads, device=settings.ocr_device,
                     recognizer=recognizer, text_detector=lines)


def build_grounder(settings: Settings) -> OcrGrounder | AccessibleGrounder:
    from .detector import UiDetector

    detector = UiDetector(settings.detector_model, settings.detector_device) if settings.detector else None
    pixels = OcrGrounder(build_ocr(settings), detector=detector)
    if not (settings.accessibility and sys.platform.startswith("linux")):
        return pixels
    from .accessibility import AccessibilityTree

    return AccessibleGrounder(pixels, AccessibilityTree())
