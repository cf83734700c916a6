"""Random web pages with the common controls (buttons, fields, check boxes, radio buttons, selects, links, tab rows,
icon buttons, sliders, menus, list boxes) in random themes, fonts, sizes and light or dark colours, rendered in
headless Chromium at random device scale factors; every control's box comes from getBoundingClientRect. These are
generic pages written here, never MiniWoB's (MiniWoB is the held-out test)."""

from __future__ import annotations

import base64
import html
import random
import tempfile
from pathlib import Path

import cv2
import numpy as np

from deskpilot.core.geometry import Box

from deskpilot.training.chromium import Chromium
from .words import Theme, label, random_theme, sentence, words

# Boxes of every marked control that is on the page and at least partly inside the viewport.
MARKED_BOXES = """
var out = [];
document.querySelectorAll('[data-dp]').forEach(function (el) {
  var r = el.getBoundingClientRect();
  var cs = getComputedStyle(el);
  if (r.width < 3 || r.height < 3 || cs.visibility === 'hidden' || cs.display === 'none') return;
  out.push([r.left, r.top, r.right, r.bottom, el.getAttribute('data-dp')]);
});
return out;
"""
ICON_GLYPHS = "✕☰⚙✎🔍★♥⬇⬆⟳✓+−⋮⌂🗑📁🔔✉◀▶"
ICON_SHAPES = ('<circle cx="12" cy="12" r="8" fill="none" stroke="currentColor" stroke-width="2"/>',
               '<path d="M5 5L19 19M19 5L5 19" stroke="currentColor" stroke-width="2.5"/>',
               '<path d="M4 7H20M4 12H20M4 17H20" stroke="currentColor" stroke-width="2"/>',
               '<path d="M12 3L21 20H3Z" fill="currentColor"/>',
               '<rect x="4" y="4" width="16" height="16" rx="3" fill="none" stroke="currentColor" stroke-width="2"/>',
               '<path d="M6 12L11 17L19 7" fill="none" stroke="currentColor" stroke-width="2.5"/>',
               '<circle cx="10" cy="10" r="6" fill="none" stroke="currentColor" stroke-width="2"/>'
               '<path d="M15 15L21 21" stroke="currentColor" stroke-width="2.5"/>')


def _css(theme: Theme, rng: random.Random) -> str:
    radius = rng.choice((0, 2, 4, 6, 12, 20))
    border = rng.choice(("1px solid " + theme.border, "2px solid " + theme.border, "none", "1px solid transparent"))
    button_bg = rng.choice((theme.accent, theme.surface, theme.background, "buttonface"))
    button_fg = theme.on_accent if button_bg == theme.accent else theme.text
    button_css = "" if rng.random() < 0.4 else (
        f"button.b {{background:{button_bg}; color:{button_fg}; border:{border}; border-radius:{radius}px; "
        f"padding:{rng.randint(2, 10)}px {rng.randint(6, 22)}px; font:inherit;"
        f"{'box-shadow:0 1px 3px rgba(0,0,0,.4);' if rng.random() < 0.3 else ''}}}")
    field_border = rng.choice(("1px solid " + theme.border, "2px solid " + theme.border, "none",
                               f"0 0 2px 0 solid {theme.border}"))
    field_css = "" if rng.random() < 0.4 else (
        f"input.f, textarea.f, select.f {{background:{theme.surface}; color:{theme.text}; border:{field_border}; "
        f"border-bottom:1px solid {theme.border}; border-radius:{rng.choice((0, 2, 4, 8))}px; "
        f"padding:{rng.randint(2, 9)}px {rng.randint(3, 10)}px; font:inherit;}}")
    toggle = rng.randint(12, 22)
    return (f"html {{color-scheme: {'dark' if theme.dark else 'light'};}} "
            f"body {{margin:{rng.randint(0, 30)}px; background:{theme.background}; color:{theme.text}; "
            f"font-family:{theme.font}; font-size:{theme.size}px; accent-color:{theme.accent};}} "
            f"a {{color:{theme.link}; text-decoration:{rng.choice(('underline', 'none'))};}} "
            f".sec {{margin:{rng.randint(4, 20)}px 0; padding:{rng.randint(0, 14)}px; "
            f"{'border:1px solid ' + theme.border + ';' if rng.random() < 0.4 else ''} "
            f"background:{rng.choice((theme.background, theme.surface))}; border-radius:{radius}px;}} "
            f"input[type=checkbox], input[type=radio] {{width:{toggle}px; height:{toggle}px; margin:3px 6px;}} "
            f".row {{margin:{rng.randint(2, 10)}px 0; display:flex; align-items:center; gap:{rng.randint(4, 16)}px;"
            f" flex-wrap:wrap;}} "
            f".tabs {{display:flex; border-bottom:1px solid {theme.border}; gap:{rng.choice((0, 2, 6))}px;}} "
            f".tab {{padding:{rng.randint(4, 10)}px {rng.randint(8, 20)}px; cursor:pointer; "
            f"border:{rng.choice(('1px solid ' + theme.border, 'none'))}; border-bottom:none; "
            f"border-radius:{radius}px {radius}px 0 0; background:{theme.surface};}} "
            f".tab.on {{background:{rng.choice((theme.accent, theme.background))}; "
            f"border-bottom:3px solid {theme.accent};}} "
            f".menu {{display:inline-block; min-width:{rng.randint(100, 220)}px; background:{theme.surface}; "
            f"border:1px solid {theme.border}; box-shadow:0 2px 8px rgba(0,0,0,.3); padding:4px 0;}} "
            f".menu div {{padding:{rng.randint(3, 9)}px {rng.randint(10, 24)}px; cursor:pointer;}} "
            f".menu div.hot {{background:{theme.accent}; color:{theme.on_accent};}} "
            f".menubar {{display:flex; gap:{rng.randint(0, 10)}px; background:{theme.surface}; padding:2px;}} "
            f".menubar span {{padding:{rng.randint(2, 8)}px {rng.randint(6, 14)}px; cursor:pointer;}} "
            f".list {{border:1px solid {theme.border}; width:{rng.randint(120, 320)}px; background:{theme.surface};}} "
            f".list div {{padding:{rng.randint(2, 8)}px 8px; border-bottom:1px solid {theme.border};}} "
            f".list div.sel {{background:{theme.accent}; color:{theme.on_accent};}} "
            f".icon {{display:inline-flex; align-items:center; justify-content:center; cursor:pointer; "
            f"width:{rng.randint(18, 40)}px; height:{rng.randint(18, 40)}px; color:{theme.text}; "
            f"border-radius:{rng.choice((0, 4, 50))}%; background:{rng.choice(('transparent', theme.surface))};}} "
            f"{button_css} {field_css}")


def _button(rng: random.Random) -> str:
    kind = rng.choice(("button", "button", "submit"))
    text = html.escape(label(rng, 1, 3) if rng.random() < 0.8 else words(rng, 1).upper())
    size = ""
    if rng.random() < 0.3:  # a fixed size: square tiles, tall or wide buttons, text wrapping inside
        width = rng.randint(30, 130)
        size = f' style="width:{width}px; height:{rng.choice((width, rng.randint(24, 130)))}px"'
    if kind == "submit":
        return f'<input type="submit" class="b" data-dp="button" value="{text}"{size}>'
    return f'<button class="b" data-dp="button"{size}>{text}</button>'


def _scattered(rng: random.Random) -> str:
    """Controls at random places in a box, as on game-like or canvas-like pages."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        control = _button(rng) if rng.random() < 0.7 else _field(rng)
        parts.append(f'<div style="position:absolute; left:{rng.randint(0, 240)}px; top:{rng.randint(0, 200)}px">'
                     f"{control}</div>")
    return f'<div style="position:relative; height:{rng.randint(160, 320)}px">{"".join(parts)}</div>'


def _dialog(rng: random.Random, theme: Theme) -> str:
    """A small dialog: a title bar with a close button (an icon), text, and buttons."""
    close = rng.choice(("✕", "×", "x", "✖"))
    bar = rng.choice((theme.accent, theme.surface, theme.border))
    return (f'<div style="display:inline-block; border:1px solid {theme.border}; border-radius:{rng.choice((0, 4))}px;'
            f' min-width:{rng.randint(160, 320)}px; background:{theme.background}">'
            f'<div style="display:flex; justify-content:space-between; align-items:center; background:{bar}; '
            f'padding:{rng.randint(3, 8)}px">'
            f"<b>{html.escape(label(rng, 1, 3))}</b>"
            f'<span data-dp="icon" style="display:inline-flex; align-items:center; justify-content:center; '
            f'width:{rng.randint(14, 24)}px; height:{rng.randint(14, 24)}px; border:1px solid {theme.border}; '
            f'border-radius:{rng.choice((0, 3, 50))}%; background:{theme.surface}; cursor:pointer">{close}</span></div>'
            f"<p style='padding:6px'>{html.escape(sentence(rng))}</p>"
            f'<div class="row" style="padding:6px">{_button(rng)}</div></div>')


def _icon(rng: random.Random) -> str:
    size = rng.randint(12, 26)
    if rng.random() < 0.5:
        inner = f'<svg width="{size}" height="{size}" viewBox="0 0 24 24">{rng.choice(ICON_SHAPES)}</svg>'
    else:
        inner = f'<span style="font-size:{size}px">{rng.choice(ICON_GLYPHS)}</span>'
    return f'<span class="icon" data-dp="icon" title="{html.escape(words(rng, 1))}">{inner}</span>'


def _field(rng: random.Random) -> str:
    kind = rng.choice(("text", "text", "password", "email", "search", "number", "textarea", "date"))
    value = html.escape(words(rng, rng.randint(1, 3))) if rng.random() < 0.4 else ""
    hint = html.escape(label(rng, 1, 2)) if rng.random() < 0.4 else ""
    width = rng.randint(80, 360)
    if kind == "textarea":
        return (f'<textarea class="f" data-dp="input" rows="{rng.randint(2, 5)}" style="width:{width}px" '
                f'placeholder="{hint}">{value}</textarea>')
    return (f'<input class="f" data-dp="input" type="{kind}" style="width:{width}px" value="{value}" '
            f'placeholder="{hint}">')


def _section(rng: random.Random, theme: Theme) -> str:
    kind = rng.choice(("form", "toggles", "buttons", "text", "tabs", "icons", "slider", "menu", "list", "select",
                       "scattered", "dialog", "links"))
    parts: list[str] = []
    if rng.random() < 0.4:
        parts.append(f"<h{rng.randint(2, 4)}>{html.escape(label(rng, 1, 4))}</h{rng.randint(2, 4)}>")
    if kind == "form":
        for _ in range(rng.randint(1, 4)):
            caption = f"<label>{html.escape(label(rng, 1, 2))}{rng.choice((':', ''))}</label>"
            stacked = rng.random() < 0.4
            parts.append(f'<div class="row" style="{"flex-direction:column;align-items:start" if stacked else ""}">'
                         f"{caption}{_field(rng)}</div>")
    elif kind == "toggles":
        toggle = rng.choice(("checkbox", "radio"))
        group = words(rng, 1)
        for _ in range(rng.randint(1, 5)):
            checked = " checked" if rng.random() < 0.35 else ""
            box = f'<input type="{toggle}" name="{group}" data-dp="{toggle}"{checked}>'
            text = f"<span>{html.escape(label(rng, 1, 3))}</span>"
            parts.append(f'<div class="row">{box + text if rng.random() < 0.85 else text + box}</div>')
    elif kind == "buttons":
        parts.append('<div class="row">' + "".join(_button(rng) for _ in range(rng.randint(1, 4))) + "</div>")
    elif kind == "text":
        for _ in range(rng.randint(1, 3)):
            chunks = [html.escape(sentence(rng))]
            for _ in range(rng.randint(0, 3)):
                chunks.append(f'<a href="#" data-dp="link">{html.escape(words(rng, rng.randint(1, 3)))}</a>')
                chunks.append(html.escape(sentence(rng)))
            parts.append(f"<p>{' '.join(chunks)}</p>")
    elif kind == "scattered":
        parts.append(_scattered(rng))
    elif kind == "dialog":
        parts.append(_dialog(rng, theme))
    elif kind == "links":  # running text where many words are links, side by side
        chunks = [f'<a href="#" data-dp="link">{html.escape(words(rng, 1))}</a>' if rng.random() < 0.5
                  else html.escape(words(rng, 1)) for _ in range(rng.randint(6, 30))]
        parts.append(f"<p style='max-width:{rng.randint(160, 500)}px'>{' '.join(chunks)}.</p>")
    elif kind == "tabs":
        count = rng.randint(2, 6)
        on = rng.randrange(count)
        parts.append('<div class="tabs">' + "".join(
            f'<div class="tab{" on" if i == on else ""}" data-dp="tab">{html.escape(label(rng, 1, 2))}</div>'
            for i in range(count)) + f"</div><p>{html.escape(sentence(rng))}</p>")
    elif kind == "icons":
        parts.append('<div class="row">' + "".join(_icon(rng) for _ in range(rng.randint(1, 7))) + "</div>")
    elif kind == "slider":
        value = rng.randint(0, 100)
        parts.append(f'<div class="row"><label>{html.escape(label(rng, 1, 2))}</label><input type="range" '
                     f'data-dp="slider" value="{value}" style="width:{rng.randint(90, 300)}px"></div>')
    elif kind == "menu":
        if rng.random() < 0.5:
            parts.append('<div class="menubar">' + "".join(
                f'<span data-dp="menu_item">{html.escape(words(rng, 1).title())}</span>'
                for _ in range(rng.randint(2, 6))) + "</div>")
        else:
            hot = rng.randrange(6)
            parts.append('<div class="menu">' + "".join(
                f'<div data-dp="menu_item"{" class=hot" if i == hot else ""}>{html.escape(label(rng, 1, 3))}</div>'
                for i in range(rng.randint(2, 7))) + "</div>")
    elif kind == "list":
        selected = rng.randrange(8)
        parts.append('<div class="list">' + "".join(
            f'<div data-dp="list_item"{" class=sel" if i == selected else ""}>{html.escape(label(rng, 1, 3))}</div>'
            for i in range(rng.randint(2, 8))) + "</div>")
    else:
        options = "".join(f"<option>{html.escape(label(rng, 1, 3))}</option>" for _ in range(rng.randint(2, 6)))
        parts.append(f'<div class="row"><label>{html.escape(label(rng, 1, 2))}</label>'
                     f'<select class="f" data-dp="dropdown">{options}</select></div>')
    return f'<div class="sec">{"".join(parts)}</div>'


def random_page(rng: random.Random, theme: Theme) -> str:
    columns = rng.choice((1, 1, 2, 3))
    sections = [_section(rng, theme) for _ in range(rng.randint(3, 9))]
    body = "".join(f'<div style="flex:1; min-width:0">{"".join(sections[i::columns])}</div>' for i in range(columns))
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>{_css(theme, rng)}</style></head><body>"
            f"<div style='display:flex; gap:{rng.randint(10, 40)}px'>{body}</div></body></html>")


class HtmlRenderer:
    """Headless Chromium drawing random pages; `render` returns (RGB image, [(box, class name)])."""

    def __init__(self) -> None:
        self._browser = Chromium(["--hide-scrollbars", "--window-size=1600,1200"], headless=True)
        self._page = Path(tempfile.mkdtemp(prefix="deskpilot-synth-")) / "page.html"

    def render(self, rng: random.Random, width: int, height: int) -> tuple[np.ndarray, list[tuple[Box, str]]]:
        """A page `width` x `height` physical pixels at a random device scale factor."""
        theme = random_theme(rng)
        ratio = rng.choice((1.0, 1.0, 1.25, 1.5, 2.0))
        driver = self._browser.driver
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": int(width / ratio), "height": int(height / ratio), "deviceScaleFactor": ratio, "mobile": False})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark" if theme.dark else "light"}]})
        self._page.write_text(random_page(rng, theme), encoding="utf-8")
        driver.get(self._page.as_uri())
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        image = cv2.imdecode(np.frombuffer(base64.b64decode(shot["data"]), np.uint8), cv2.IMREAD_COLOR)
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        frame = Box(0, 0, image.shape[1], image.shape[0])
        boxes: list[tuple[Box, str]] = []
        for left, top, right, bottom, name in driver.execute_script(MARKED_BOXES):
            box = Box(round(left * ratio), round(top * ratio), round(right * ratio), round(bottom * ratio))
            clipped = box.clipped(frame)
            if clipped.area >= 0.6 * box.area and clipped.width >= 3 and clipped.height >= 3:
                boxes.append((clipped, str(name)))
        return image, boxes

    def close(self) -> None:
        self._browser.close()
        self._page.unlink(missing_ok=True)
        self._page.parent.rmdir()
