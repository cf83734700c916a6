"""Text-line data for the recogniser: crops of real screens labelled by PP-OCR (the teacher), and synthetic lines
drawn with the machine's fonts (their text known exactly: random strings, numbers, dates, addresses and words).

A dataset folder holds `lines/NNNNNN.png` (the crop as a detector cut it, PP-OCR's or deskpilot's text-line
detector's; BGR as OpenCV writes it) and
`labels.jsonl` (`{"image": "lines/000001.png", "text": "Save", "source": "ppocr", "group": "screens/000004"}`;
`group` is the screen it came from, so held-out lines come from held-out screens). For the text-line detector it
also holds every screen whole, `pages/NNNNNN.png` (RGB), with `pages.jsonl` (`{"image": "pages/000001.png", "boxes":
[[x0, y0, x1, y1], ...], "group": "screens/000004"}`: every line PP-OCR detected and read as text, whatever its
alphabet). A file is written before the line naming it, so an interrupted harvest loses at most one line or page;
harvesting again into a folder adds to it."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from deskpilot.core.episode import encode_png
from deskpilot.core.errors import TrainingError
from deskpilot.core.geometry import Box
from deskpilot.grounding.ocr import OcrEngine, TextLine

LABELS = "labels.jsonl"
PAGES = "pages.jsonl"
# Printable ASCII and the symbols screens show most; text with anything else is left to PP-OCR.
ALPHABET = string.printable[:95].replace("\t", "") + "•·–—‘’“”…©®°±×÷€£¥§«»"
TEACHER_SCORE = 0.9  # PP-OCR readings below this are not used as labels
FONT_FOLDERS = (Path("/usr/share/fonts"), Path.home() / ".fonts", Path.home() / ".local/share/fonts")
NOT_TEXT_FONTS = ("symbol", "d050000l", "z003", "math", "dingbat", "emoji")


@dataclass(frozen=True)
class Page:
    """A whole screen and its text lines' boxes (as PP-OCR detected them), for the text-line detector."""

    image: Path
    boxes: tuple[Box, ...]
    group: str


@dataclass(frozen=True)
class LineSample:
    image: Path
    text: str
    source: str  # who read its text: ppocr (synthetic lines are drawn in memory, never stored)
    group: str


def in_alphabet(text: str) -> bool:
    return bool(text) and all(ch in ALPHABET for ch in text)


class LineWriter:
    """Appends crops and their labels, and whole screens with their line boxes, to a dataset folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "lines").mkdir(parents=True, exist_ok=True)
        (folder / "pages").mkdir(exist_ok=True)
        self.count = len(read_lines(folder)) if (folder / LABELS).exists() else 0
        self.pages = len(read_pages(folder)) if (folder / PAGES).exists() else 0

    def add(self, crop_bgr: np.ndarray, text: str, source: str, group: str) -> None:
        self.count += 1
        name = f"lines/{self.count:06d}.png"
        (self.folder / name).write_bytes(encode_png(np.ascontiguousarray(crop_bgr[:, :, ::-1])))
        with open(self.folder / LABELS, "a", encoding="utf-8") as labels:
            labels.write(json.dumps({"image": name, "text": text, "source": source, "group": group}) + "\n")

    def add_page(self, image: np.ndarray, boxes: list[Box], group: str) -> None:
        self.pages += 1
        name = f"pages/{self.pages:06d}.png"
        (self.folder / name).write_bytes(encode_png(image))
        with open(self.folder / PAGES, "a", encoding="utf-8") as pages:
            pages.write(json.dumps({"image": name, "boxes": [list(b) for b in boxes], "group": group}) + "\n")


def harvest_screen(image: np.ndarray, teacher: OcrEngine, writer: LineWriter, group: str,
                   cutter: OcrEngine | None = None, ppocr_cut: bool = True) -> int:
    """Read the text lines of an RGB screen with PP-OCR (the teacher) and keep the ones it reads surely in ALPHABET
    as labelled crops, cut as PP-OCR's detector finds them (`ppocr_cut`; the screen is kept whole too, with every
    line read as text, for the text-line detector) and as `cutter`'s detector finds them (deskpilot's text-line
    detector: the crops the recogniser reads at run time); returns how many crops were kept."""
    kept = 0
    if ppocr_cut:
        teacher.forget_text_size()  # each screen's text size is its own
        lines = teacher.read(image)
        writer.add_page(image, [line.box for line in lines], group)
        kept += _keep_sure(image, lines, writer, group)
    if cutter is not None:
        cutter.forget_text_size()
        kept += _keep_sure(image, teacher.read_boxes(image, cutter.find_text(image)), writer, group)
    return kept


def _keep_sure(image: np.ndarray, lines: list[TextLine], writer: LineWriter, group: str) -> int:
    sure = [line for line in lines if line.score >= TEACHER_SCORE and in_alphabet(line.text)]
    for line in sure:
        box = line.box
        writer.add(np.ascontiguousarray(image[box.y0:box.y1, box.x0:box.x1, ::-1]), line.text, "ppocr", group)
    return len(sure)


def _json_rows(path: Path, what: str) -> list[dict]:
    """The entries of a JSONL file that a harvest appends to; a torn last line (an interrupted harvest) is
    skipped, a corrupt earlier one is an error."""
    rows = path.read_text(encoding="utf-8").splitlines()
    entries = []
    for number, raw in enumerate(rows, 1):
        try:
            entries.append(json.loads(raw))
        except ValueError:
            if number < len(rows):
                raise TrainingError(f"{path}:{number} is not {what}") from None
    return entries


def read_lines(folder: Path) -> list[LineSample]:
    path = folder / LABELS
    if not path.exists():
        raise TrainingError(f"{folder} holds no text lines ({LABELS} is missing): harvest some with "
                            "`deskpilot recognizer harvest`")
    try:
        return [LineSample(folder / e["image"], e["text"], e["source"], e["group"])
                for e in _json_rows(path, "a text-line label")]
    except (KeyError, TypeError):
        raise TrainingError(f"{path} holds an entry that is not a text-line label") from None


def read_pages(folder: Path) -> list[Page]:
    path = folder / PAGES
    if not path.exists():
        raise TrainingError(f"{folder} holds no whole screens ({PAGES} is missing): harvest them with "
                            "`deskpilot recognizer harvest`")
    try:
        return [Page(folder / e["image"], tuple(Box(*map(int, b)) for b in e["boxes"]), e["group"])
                for e in _json_rows(path, "a page entry")]
    except (KeyError, TypeError, ValueError):
        raise TrainingError(f"{path} holds an entry that is not a page with text-line boxes") from None


def read_datasets(folders: list[Path]) -> list[LineSample]:
    return [sample for folder in folders for sample in read_lines(folder)]


def font_files() -> list[Path]:
    """The machine's TrueType/OpenType fonts that draw Latin text."""
    found = sorted({p for folder in FONT_FOLDERS if folder.is_dir() for pattern in ("*.ttf", "*.otf", "*.pfb")
                    for p in folder.rglob(pattern)})
    return [p for p in found if not any(bad in p.name.lower() for bad in NOT_TEXT_FONTS)]


class SyntheticLines:
    """Lines of known text drawn with random fonts, sizes, colours and margins like detection's boxes. `words` (e.g.
    from the harvested lines) make some of the text; the rest is random strings, numbers, dates and addresses."""

    def __init__(self, seed: int, words: Iterable[str] = ()):
        self.rng = random.Random(seed)
        self.fonts = font_files()
        self.words = sorted(set(words)) or ["Submit", "Cancel", "OK", "File", "Edit", "Search", "Name", "Email"]
        self._loaded: dict[tuple[Path, int], ImageFont.FreeTypeFont] = {}

    def _font(self, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        if not self.fonts:
            return ImageFont.load_default(size)
        path = self.rng.choice(self.fonts)
        if (path, size) not in self._loaded:
            try:
                self._loaded[(path, size)] = ImageFont.truetype(str(path), size)
            except OSError:
                self.fonts.remove(path)
                return self._font(size)
        return self._loaded[(path, size)]

    def text(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.45:
            text = " ".join(rng.choice(self.words) for _ in range(rng.randint(1, 5)))
        elif kind < 0.65:
            pool = rng.choice((string.ascii_letters, string.ascii_letters + string.digits, string.ascii_lowercase,
                               ALPHABET[:95]))
            text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 14)))
        elif kind < 0.8:
            text = rng.choice((f"{rng.randint(0, 99999)}", f"{rng.uniform(0, 9999):.2f}", f"${rng.randint(1, 999)}",
                               f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1950, 2030)}",
                               f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}", f"-{rng.randint(1, 99)}",
                               f"{rng.randint(1, 99)} + {rng.randint(1, 99)} =", f"{rng.randint(0, 100)}%"))
        elif kind < 0.9:
            name = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
            text = rng.choice((f"{name}@{rng.choice(self.words).lower()}.com", f"@{name}", f"#{name}",
                               f"www.{name}.org", f"{name}_{rng.randint(1, 99)}"))
        else:
            text = " ".join(rng.choice(self.words) for _ in range(rng.randint(1, 3))) + rng.choice(".:,!?)")
        return "".join(ch for ch in text if ch in ALPHABET).strip() or "OK"

    def line(self) -> tuple[np.ndarray, str]:
        """(BGR crop, its text)."""
        rng = self.rng
        text, size = self.text(), rng.choice((9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26, 28, 32, 36, 40))
        font = self._font(size)
        background = tuple(rng.randint(0, 255) for _ in range(3))
        ink = tuple(int(np.clip(v + rng.choice((-1, 1)) * rng.randint(90, 255), 0, 255)) for v in background)
        if sum(abs(a - b) for a, b in zip(ink, background)) < 150:
            ink = tuple(255 - v for v in background)
        x0, y0, x1, y1 = font.getbbox(text)
        if rng.random() < 0.5 and isinstance(font, ImageFont.FreeTypeFont):  # the font's whole line, not the ink
            ascent, descent = font.getmetrics()
            y0, y1 = 0, ascent + descent
        height = max(1, y1 - y0)
        pad = [round(rng.uniform(0.1, 0.5) * height), round(rng.uniform(0.05, 0.4) * height),
               round(rng.uniform(0.1, 0.5) * height), round(rng.uniform(0.05, 0.4) * height)]  # left top right bottom
        canvas = Image.new("RGB", (x1 - x0 + pad[0] + pad[2], height + pad[1] + pad[3]), background)
        ImageDraw.Draw(canvas).text((pad[0] - x0, pad[1] - y0), text, font=font, fill=ink)
        crop = np.asarray(canvas)[:, :, ::-1]
        if rng.random() < 0.15:  # a little softness, as a scaled screen shows
            crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 0.8))
        return np.ascontiguousarray(crop), text
