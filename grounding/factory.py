"""Building the grounder the settings ask for: OCR, with the UI-element detector merged in when it is enabled."""

from __future__ import annotations

from deskpilot.core.settings import Settings

from .ocr_grounder import OcrGrounder


def build_grounder(settings: Settings) -> OcrGrounder:
    from .detector import UiDetector
    from .ocr import OcrEngine

    detector = UiDetector(settings.detector_model, settings.detector_device) if settings.detector else None
    return OcrGrounder(OcrEngine(threads=settings.ocr_threads, device=settings.ocr_device), detector=detector)
