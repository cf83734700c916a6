"""Grounding: screenshot -> UI elements (`parse`), and description -> the element it means (`locate`)."""

from .base import Grounder
from .ocr_grounder import OcrGrounder

__all__ = ["Grounder", "OcrGrounder"]
