"""A MiniWoB++ task in a real, visible Chromium window at a fixed place on the screen.

The page is driven through Selenium only to start episodes and to read what the agent never sees: the reward and,
for grounding scores, the DOM boxes. The agent itself gets pixels from the screen and acts with real X input.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskpilot.core.errors import DeskpilotError, EvaluationError
from deskpilot.core.geometry import Box

from deskpilot.training.chromium import Chromium

WINDOW_SIZE = (400, 360)  # CSS pixels: the 160x210 task canvas with room around it
READY_TIMEOUT = 5.0
# Everything on the page except the task itself is hidden: the reward panel with its timer and the click dots.
HIDE_EXTRAS = """
var style = document.getElementById('deskpilot-hide') || document.createElement('style');
style.id = 'deskpilot-hide';
style.textContent = '#reward-display, #click-canvas {visibility: hidden !important;}';
document.head.appendChild(style);
if (core.cover_div) { core.cover_div.onclick = null; }
"""
# Visible leaf elements of the task area: clickable controls, and elements with text of their own.
DOM_BOXES = """
var skip = '#query, #reward-display, #click-canvas, #sync-task-cover';
var clickable = 'a, button, input, select, textarea, label, [onclick], [role=button], [role=tab], .ui-tabs-anchor,'
  + ' .ui-accordion-header, .ui-dialog-titlebar-close, .ui-menu-item';
var out = [];
document.body.querySelectorAll('*').forEach(function (el) {
  if (el.closest(skip)) return;  // jQuery UI dialogs live outside #wrap, so the whole body is searched
  var r = el.getBoundingClientRect();
  var cs = getComputedStyle(el);
  if (r.width < 2 || r.height < 2 || cs.visibility === 'hidden' || cs.display === 'none') return;
  var own = '';
  el.childNodes.forEach(function (n) { if (n.nodeType === 3) own += n.data; });
  own = own.replace(/\\s+/g, ' ').trim();
  var isClickable = el.matches(clickable) || cs.cursor === 'pointer';
  if ((!own && !isClickable) || ['SCRIPT', 'STYLE'].indexOf(el.tagName) >= 0) return;
  var tag = el.tagName.toLowerCase();
  if (el instanceof HTMLInputElement) tag += '_' + el.type;
  var role = el.matches('[role=tab], .ui-tabs-anchor') ? 'tab' : el.matches('[role=menuitem], .ui-menu-item') ?
    'menu_item' : el.matches('.ui-dialog-titlebar-close') ? 'icon' : el.matches('.alink') ? 'link' :
    (el.getAttribute('role') || '');
  out.push({tag: tag, role: role, text: own || (el.value || ''), clickable: isClickable,
            left: r.left, top: r.top, width: r.width, height: r.height});
});
return {elements: out, dpr: window.devicePixelRatio, x: window.screenX, y: window.screenY,
        utterance: document.getElementById('query').innerText};
"""


@dataclass(frozen=True)
class PageElement:
    """An element of the task page for scoring: its box in screen pixels, tag (input types as `input_<type>`),
    own text, whether it takes clicks, and its widget role where the page says (tab, menu_item, icon, ...)."""

    box: Box
    tag: str
    text: str
    clickable: bool
    role: str = ""


@dataclass(frozen=True)
class EnvState:
    done: bool
    reward: float  # discounted by time, as MiniWoB reports it
    raw_reward: float  # 1 on success, -1 on failure or time-out
    reason: str | None


def _task_pages() -> Path:
    try:
        import miniwob
    except ImportError:
        raise EvaluationError("MiniWoB evaluation needs the bench extra: pip install 'deskpilot[bench]'") from None
    return Path(miniwob.__file__).parent / "html" / "miniwob"


def all_tasks() -> list[str]:
    """Every MiniWoB++ task, by name."""
    return sorted(p.stem for p in _task_pages().glob("*.html"))


def task_url(task: str) -> str:
    page = _task_pages() / f"{task}.html"
    if not page.exists():
        raise EvaluationError(f"MiniWoB has no task {task!r}")
    return page.as_uri()


class MiniWobBrowser:
    """One Chromium window (app mode, no browser chrome) reused across tasks and episodes. Use as a context
    manager; `scale` is the device scale factor (2 makes the 10-px text of the tasks legible)."""

    def __init__(self, scale: float = 2.0, position: tuple[int, int] = (40, 40)):
        self.scale, self.position = scale, position
        self.task: str | None = None
        self._browser: Chromium | None = None
        self._driver: Any = None

    def start(self, task: str) -> MiniWobBrowser:
        self._browser = Chromium([f"--force-device-scale-factor={self.scale:g}",
                                  "--window-position={},{}".format(*self.position),
                                  "--window-size={},{}".format(*WINDOW_SIZE), f"--app={task_url(task)}"])
        self._driver = self._browser.driver
        try:
            self._ready(task)
        except DeskpilotError:
            self.close()
            raise
        return self

    def open(self, task: str) -> None:
        """Show another task in the same window."""
        if self._driver is None:
            self.start(task)
            return
        if task != self.task:
            self._driver.get(task_url(task))
            self._ready(task)

    def _wait_until(self, condition: str, failure: str, interval: float) -> None:
        """Poll a JavaScript condition until it holds; a one-line error after READY_TIMEOUT."""
        deadline = time.monotonic() + READY_TIMEOUT
        while not self._driver.execute_script(f"return {condition};"):
            if time.monotonic() > deadline:
                raise EvaluationError(failure)
            time.sleep(interval)

    def _ready(self, task: str) -> None:
        self._wait_until("typeof core !== 'undefined' && !!core.cover_div",
                         f"the MiniWoB page of {task!r} did not load", 0.05)
        self._driver.execute_script(HIDE_EXTRAS)
        self.task = task

    def reset(self, seed: int) -> str:
        """Start a new episode from `seed` (with the task's own timer); returns its instruction (the utterance)."""
        self._driver.execute_script(f"core.endEpisode(0); Math.seedrandom({seed}); core.setDataMode('train'); "
                                    "core.startEpisodeReal();")
        self._wait_until("WOB_TASK_READY && core.cover_div.style.display === 'none'",
                         f"the MiniWoB task {self.task!r} did not start", 0.02)
        self._driver.execute_script(HIDE_EXTRAS)
        utterance = self._driver.execute_script("return core.getUtterance();")
        return str(utterance["utterance"] if isinstance(utterance, dict) else utterance)

    def state(self) -> EnvState:
        got = self._driver.execute_script("return [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL, "
                                          "WOB_REWARD_REASON];")
        return EnvState(bool(got[0]), float(got[1] or 0.0), float(got[2] or 0.0),
                        None if got[3] is None else str(got[3]))

    def end(self) -> None:
        """End the episode now (reward 0 unless it already ended): nothing more counts towards it."""
        self._driver.execute_script("core.endEpisode(0);")

    def elements(self) -> list[PageElement]:
        """Visible elements of the task area with boxes in screen pixels (for scoring only)."""
        got = self._driver.execute_script(DOM_BOXES)
        ratio, x, y = float(got["dpr"]), float(got["x"]), float(got["y"])

        def screen(e: dict[str, Any]) -> Box:
            return Box(round((x + e["left"]) * ratio), round((y + e["top"]) * ratio),
                       round((x + e["left"] + e["width"]) * ratio), round((y + e["top"] + e["height"]) * ratio))

        return [PageElement(screen(e), str(e["tag"]), str(e["text"]), bool(e["clickable"]), str(e["role"]))
                for e in got["elements"]]

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = self._driver = None

    def __enter__(self) -> MiniWobBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

