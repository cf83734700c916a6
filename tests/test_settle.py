"""The screen's settle wait on a real X display: an endless spinner does not hold it to its timeout, and an app
that answers a click a little later is still waited for; a first look hands its first grab to the caller's work
at once."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import TESTS_DIR, wait_for_state

from deskpilot.core.screen import TYPED_QUIET, Screen, changed_box


@pytest.fixture
def animated(xdisplay, tmp_path: Path) -> Iterator[None]:  # noqa: ANN001
    state = tmp_path / "animated.json"
    process = subprocess.Popen([sys.executable, str(TESTS_DIR / "apps" / "animated.py"), "--state", str(state)])
    try:
        wait_for_state(state)
        time.sleep(0.3)
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


def _panel(frame: np.ndarray) -> tuple[int, int, int]:
    """The large panel's centre and bottom row: the rows and columns where it is 300 by 150 pixels of grey or
    green."""
    inside = np.zeros(frame.shape[:2], bool)
    for colour in ((136, 136, 136), (0, 204, 0), (0, 0, 204)):
        inside |= np.all(np.abs(frame.astype(int) - colour) < 4, axis=2)
    rows, cols = np.flatnonzero(inside.sum(axis=1) >= 250), np.flatnonzero(inside.sum(axis=0) >= 120)
    assert len(rows) and len(cols), "the panel is not on the screen"
    return int(cols.mean()), int(rows.mean()), int(rows.max())


def _panel_colour(frame: np.ndarray) -> tuple[int, ...]:
    """Grey before the click, green after; blue after typing paused."""
    x, y, _ = _panel(frame)
    return tuple(int(v) for v in frame[y, x])


def test_an_endless_spinner_does_not_hold_the_wait_to_its_timeout(animated):
    screen = Screen()
    started = time.monotonic()
    screen.wait_until_settled(timeout=60.0)
    assert time.monotonic() - started < 30.0  # it settled: it did not run into its timeout, however busy the machine


def test_a_late_answer_to_a_click_is_waited_for(animated):
    screen = Screen()
    before = screen.wait_until_settled(timeout=3.0)
    assert _panel_colour(before) == (136, 136, 136)
    x, _, bottom = _panel(before)
    subprocess.run(["xdotool", "mousemove", str(x), str(bottom + 37), "click", "1"], check=True)  # Go, below it
    started = time.monotonic()
    after = screen.wait_until_settled(before, timeout=60.0)
    assert _panel_colour(after) == (0, 204, 0)
    assert time.monotonic() - started < 30.0  # settled on the answer, not on the timeout


def test_after_typing_the_wait_lasts_until_what_answers_a_pause_in_typing_has_shown(animated):
    """Suggestions, a search as you type: they come a few hundred milliseconds after the last key (the field here
    turns the panel blue 300 ms after typing pauses), so after typing the wait needs a longer quiet to see them."""
    screen = Screen()
    before = screen.wait_until_settled(timeout=3.0)
    x, _, bottom = _panel(before)
    subprocess.run(["xdotool", "mousemove", str(x), str(bottom + 70), "click", "1"], check=True)  # the field
    clicked = screen.wait_until_settled(before, timeout=3.0)
    subprocess.run(["xdotool", "type", "--delay", "30", "abc"], check=True)
    after = screen.wait_until_settled(clicked, timeout=3.0, quiet=TYPED_QUIET)
    assert _panel_colour(after) == (0, 0, 204)


def test_changed_box_bounds_every_differing_pixel():
    before = np.zeros((50, 80, 3), np.uint8)
    after = before.copy()
    after[10, 20] = 255
    after[30, 60, 1] = 9
    box = changed_box(before, after)
    assert box is not None and tuple(box) == (20, 10, 61, 31)
    assert changed_box(before, before) is None


def test_a_first_look_hands_its_first_grab_over_at_once(xdisplay):  # noqa: ANN001
    seen: list[np.ndarray] = []
    settled = Screen().wait_until_settled(timeout=3.0, on_change=seen.append)  # a still screen: only that grab
    assert len(seen) == 1 and np.array_equal(seen[0], settled)
