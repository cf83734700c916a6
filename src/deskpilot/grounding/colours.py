"""The colour of a control, in the words a person uses: "the olive box", "the red button", "the blue swatch". A
control's fill is the one colour most of its inside shows (a swatch, a coloured button; text and borders are the
rest); it is named by the nearest of the basic colour names (the sixteen HTML colours, and orange, pink and brown)
in CIE Lab (lightness weighed less than hue), where distances follow what eyes tell apart. A word a task says names
a colour (`colour_word`), and a fill fits it where it is that colour, or, when no control is exactly that colour, a
shade of it ("green" takes lime; "red" takes maroon)."""

from __future__ import annotations

import re

import cv2
import numpy as np

from deskpilot.core.geometry import Box

# The basic colour names, each with the sRGB values of the colours people call so (HTML's sixteen, and orange,
# pink and brown; the CSS colours of each family beside them: "dodgerblue" is blue to a person).
PALETTE: dict[str, tuple[tuple[int, int, int], ...]] = {
    "black": ((0, 0, 0),), "white": ((255, 255, 255), (245, 245, 245)),
    "gray": ((128, 128, 128), (105, 105, 105), (169, 169, 169)), "silver": ((192, 192, 192), (211, 211, 211)),
    "red": ((255, 0, 0), (220, 20, 60), (255, 99, 71), (205, 92, 92), (178, 34, 34)), "maroon": ((128, 0, 0),),
    "yellow": ((255, 255, 0), (255, 215, 0), (240, 230, 140)), "olive": ((128, 128, 0), (107, 142, 35)),
    "lime": ((0, 255, 0), (50, 205, 50), (124, 252, 0)),
    "green": ((0, 128, 0), (34, 139, 34), (46, 139, 87), (60, 179, 113), (0, 100, 0)),
    "aqua": ((0, 255, 255), (64, 224, 208), (127, 255, 212)), "teal": ((0, 128, 128), (32, 178, 170)),
    "blue": ((0, 0, 255), (0, 0, 205), (65, 105, 225), (30, 144, 255), (0, 191, 255), (70, 130, 180),
             (100, 149, 237), (135, 206, 235), (173, 216, 230)),
    "navy": ((0, 0, 128), (25, 25, 112), (0, 0, 139)), "fuchsia": ((255, 0, 255), (238, 130, 238), (218, 112, 214)),
    "purple": ((128, 0, 128), (75, 0, 130), (148, 0, 211), (138, 43, 226), (147, 112, 219)),
    "orange": ((255, 165, 0), (255, 140, 0), (255, 127, 80)),
    "pink": ((255, 192, 203), (255, 105, 180), (255, 182, 193), (255, 20, 147)),
    "brown": ((165, 42, 42), (139, 69, 19), (160, 82, 45), (210, 105, 30)),
}
LIGHTNESS_WEIGHT = 0.5  # how much lightness counts beside hue and chroma in telling colour names apart
SYNONYMS = {"grey": "gray", "cyan": "aqua", "magenta": "fuchsia", "violet": "purple", "lavender": "purple",
            "golden": "yellow", "gold": "yellow", "crimson": "red", "scarlet": "red", "turquoise": "aqua"}
# The names a colour word also takes as a shade of it, where no control is exactly that colour.
SHADES = {"red": ("maroon",), "green": ("lime",), "blue": ("navy",), "yellow": ("olive",), "purple": ("fuchsia",),
          "gray": ("silver",), "aqua": ("teal",), "pink": ("fuchsia",)}
COLOUR_WORD = re.compile(r"\b(" + "|".join(sorted([*PALETTE, *SYNONYMS], key=len, reverse=True)) + r")\b", re.I)
FILL_SHARE = 0.5  # of a control's inside, the share one colour must cover to be its fill
FILL_STEP = 24  # levels per channel: colours this close count as one (anti-aliasing, gradients' bands)
INSET = 2  # pixels of border left out of the inside


def colour_word(text: str) -> str | None:
    """The colour the words name ("Olive", "grey" -> "gray"), or None where they name none."""
    match = COLOUR_WORD.search(text)
    if match is None:
        return None
    word = match.group(1).lower()
    return SYNONYMS.get(word, word)


def fill_colour(image: np.ndarray, box: Box) -> str | None:
    """The name of the colour most of `box`'s inside shows (`image` RGB, as grounding reads it; `box` in its
    pixels); None where no one colour covers FILL_SHARE of it, or the box is too small to have an inside."""
    inner = box.padded(-INSET)
    if inner.width < 3 or inner.height < 3:
        return None
    pixels = image[max(inner.y0, 0):inner.y1, max(inner.x0, 0):inner.x1].reshape(-1, 3)
    if not len(pixels):
        return None
    bins = pixels.astype(np.int32) // FILL_STEP
    keys = (bins[:, 0] * 64 + bins[:, 1]) * 64 + bins[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    top = int(np.argmax(counts))
    if counts[top] <= FILL_SHARE * len(pixels):
        return None
    rgb = np.median(pixels[keys == values[top]], axis=0).astype(np.uint8)
    return nearest_name(rgb)


def nearest_name(rgb: np.ndarray) -> str:
    """The basic colour name nearest an RGB colour, in CIE Lab."""
    lab = cv2.cvtColor(rgb.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_RGB2LAB).reshape(3).astype(np.float32)
    difference = _PALETTE_LAB - lab
    difference[:, 0] *= LIGHTNESS_WEIGHT
    return _NAMES[int(np.argmin((difference ** 2).sum(axis=1)))]


def fits(wanted: str, name: str | None, exact: bool) -> bool:
    """Whether a fill named `name` is the colour `wanted`: that very colour, or (not `exact`) a shade of it."""
    return name is not None and (name == wanted or (not exact and name in SHADES.get(wanted, ())))


_NAMES = [name for name, values in PALETTE.items() for _ in values]
_PALETTE_LAB = cv2.cvtColor(np.array([[value for values in PALETTE.values() for value in values]], np.uint8),
                            cv2.COLOR_RGB2LAB).reshape(-1, 3).astype(np.float32)
