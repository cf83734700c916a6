"""What synthetic screens are made of besides controls: random words and labels, and colour themes (light and
dark, with an accent colour) and fonts, shared by the web and the Qt renderers."""

from __future__ import annotations

import colorsys
import random
from dataclasses import dataclass

VOCABULARY = (
    "account address advanced alert apply archive back balance billing bold border cancel card cart change chart "
    "check city clear close code color comment confirm connect contact copy country create custom date default "
    "delete description details device disable display document download draft edit email enable export favorite "
    "file filter find folder font format forward general group help hidden history home image import inbox info "
    "insert invoice item language large layout level library link list load location lock login logout mail "
    "manage media menu message mode more move name network new next note notify number open options order page "
    "password paste payment phone photo preview print privacy profile project publish quality query quick read "
    "recent record refresh remove rename reply report reset restore review save schedule search security select "
    "send settings share show size sort source start status stop storage submit summary support sync system tag "
    "task team template theme time title today tools total update upload user value version view volume week "
    "window work year zoom alpha beta delta north south river stone paper green blue orange silver maple").split()
FONTS = ("DejaVu Sans", "Liberation Sans", "Liberation Serif", "DejaVu Serif", "Liberation Sans Narrow",
         "DejaVu Sans Mono", "WenQuanYi Micro Hei", "Liberation Mono")


@dataclass(frozen=True)
class Theme:
    """Colours as CSS hex strings, a font family and a base font size in pixels."""

    dark: bool
    background: str
    surface: str
    text: str
    border: str
    accent: str
    on_accent: str
    link: str
    font: str
    size: int


def _hex(h: float, s: float, v: float) -> str:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(1.0, max(0.0, s)), min(1.0, max(0.0, v)))
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def random_theme(rng: random.Random) -> Theme:
    dark = rng.random() < 0.35
    hue, tint = rng.random(), rng.uniform(0.0, 0.12)
    accent_hue = rng.random()
    accent_value = rng.uniform(0.55, 0.95)
    if dark:
        background, surface = _hex(hue, tint, rng.uniform(0.08, 0.2)), _hex(hue, tint, rng.uniform(0.18, 0.3))
        text, border = _hex(hue, 0.03, rng.uniform(0.8, 0.97)), _hex(hue, tint, rng.uniform(0.35, 0.55))
    else:
        background, surface = _hex(hue, tint, rng.uniform(0.92, 1.0)), _hex(hue, tint, rng.uniform(0.86, 1.0))
        text, border = _hex(hue, 0.05, rng.uniform(0.0, 0.25)), _hex(hue, tint, rng.uniform(0.55, 0.8))
    return Theme(dark, background, surface, text, border, _hex(accent_hue, rng.uniform(0.5, 0.9), accent_value),
                 "#ffffff" if accent_value < 0.8 else "#000000",
                 _hex(rng.choice((0.6, 0.62, 0.75, 0.55, accent_hue)), 0.8, 0.95 if dark else 0.75),
                 rng.choice(FONTS), rng.randint(10, 18))


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(count))


def label(rng: random.Random, shortest: int, longest: int) -> str:
    """A control's caption: a few words, capitalised the way interfaces do."""
    text = words(rng, rng.randint(shortest, longest))
    style = rng.random()
    return text.title() if style < 0.3 else text.upper() if style < 0.4 else text.capitalize()


def sentence(rng: random.Random) -> str:
    return words(rng, rng.randint(3, 12)).capitalize() + rng.choice((".", ".", ",", ":", ""))
