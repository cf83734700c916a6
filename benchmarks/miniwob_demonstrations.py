"""Demonstrations of MiniWoB++ tasks through deskpilot's own recorder, by a scripted person: for each (task, seed)
the page is started, `deskpilot record --task <the page's instruction>` runs as a person would run it, real X input
(xdotool) does the task — where to click is read from the page's DOM, as a person reads the screen — and the stop
hotkey ends the recording. The page's reward verifies each demonstration: a failed one is deleted, a successful one
gets the task, seed and reward in its episode.json, like a collected episode. These are the demonstrations a
person would give for tasks that neither the rule planner nor exploration solves; training on them is
`deskpilot train sft --mode som-text --data DEMOS ...` (the samples ground the recorded frames).

    python benchmarks/miniwob_demonstrations.py --tasks login-user-popup,enter-date --episodes 10 --seed 80000 \\
        --out data/demos

One script per task below (`SCRIPTS`): they are the person, not the agent, and say only what a person who reads the
instruction would do. Prints one line per demonstration and a summary line."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# benchmarks/miniwob.py, beside this script, would shadow the miniwob package the browser loads its pages from
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from deskpilot.core.display import VirtualDisplay  # noqa: E402
from deskpilot.core.episode import delete_episode, list_episodes, read_episode, rewrite_meta  # noqa: E402
from deskpilot.evaluation.miniwob.page import MiniWobBrowser  # noqa: E402
from deskpilot.core.verdict import EnvironmentRun  # noqa: E402

PAUSE = 0.5  # seconds between a person's actions, so each screen settles in the recording
BOX = """
var el = document.querySelector(arguments[0]);
if (!el) return null;
var r = el.getBoundingClientRect(), cs = getComputedStyle(el);
if (r.width < 2 || cs.display === 'none' || cs.visibility === 'hidden') return null;
return [window.screenX + r.left + r.width * arguments[1], window.screenY + r.top + r.height / 2,
        window.devicePixelRatio];
"""


class Person:
    """Real input at the places the page's DOM gives."""

    def __init__(self, browser: MiniWobBrowser):
        self.browser = browser

    @property
    def driver(self) -> Any:
        return self.browser._driver  # noqa: SLF001 - the person reads the page's DOM, as the scoring does

    def shows(self, selector: str) -> bool:
        return self.driver.execute_script(BOX, selector, 0.5) is not None

    def click(self, selector: str, across: float = 0.5) -> None:
        """Click the element, `across` its width from its left edge."""
        x, y, ratio = self.driver.execute_script(BOX, selector, across)
        subprocess.run(["xdotool", "mousemove", str(round(x * ratio)), str(round(y * ratio)), "click", "1"],
                       check=True, timeout=20)
        time.sleep(PAUSE)

    def key(self, name: str) -> None:
        subprocess.run(["xdotool", "key", name], check=True, timeout=20)
        time.sleep(PAUSE)

    def type(self, text: str) -> None:
        subprocess.run(["xdotool", "type", "--delay", "30", text], check=True, timeout=20)
        time.sleep(PAUSE)


def login_user_popup(person: Person, utterance: str) -> None:
    """Log in; a popup that asks to leave the page is declined (Cancel), then the field is clicked again."""
    user, password = utterance.split('"')[1], utterance.split('"')[3]
    for field, text in (("#username", user), ("#password", password)):
        person.click(field)
        if person.shows("#popup"):
            person.click("#popup-cancel")
            person.click(field)
        person.type(text)
    person.click("#subbtn")


def enter_date(person: Person, utterance: str) -> None:
    """Type the date the instruction names into the date field, then Submit. A click in the middle of a date field
    lands on its year part (where the agent clicks a field), so the arrow keys go back to the month first."""
    date = utterance.split("Enter ", 1)[1].split(" as the date", 1)[0]
    person.click("#tt")
    person.key("Left")
    person.key("Left")
    person.type(date)
    person.click("#subbtn")


SCRIPTS: dict[str, Callable[[Person, str], None]] = {"login-user-popup": login_user_popup, "enter-date": enter_date}


def record(task: str, out: Path) -> tuple[subprocess.Popen[str], Path]:
    """`deskpilot record` started, and the episode folder it writes."""
    before = set(list_episodes(out))
    process = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "record", "--task", task, "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (new := set(list_episodes(out)) - before):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the recorder did not start: {process.communicate()[1].strip()[-300:]}")
        time.sleep(0.05)
    time.sleep(1.0)  # its listeners up
    return process, new.pop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=",".join(SCRIPTS), help=f"of: {', '.join(SCRIPTS)}")
    parser.add_argument("--episodes", type=int, default=10, help="demonstrations per task")
    parser.add_argument("--seed", type=int, default=80_000, help="first seed (keep clear of the held-out 1000+)")
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    kept = tried = 0
    display = VirtualDisplay().start()
    display.activate()
    try:
        with MiniWobBrowser() as browser:
            person = Person(browser)
            for task in options.tasks.split(","):
                browser.open(task)
                for seed in range(options.seed, options.seed + options.episodes):
                    utterance = browser.reset(seed)  # the instruction, to name the recording
                    browser.end()
                    process, directory = record(utterance, options.out)
                    browser.reset(seed)  # the same page again, its timer starting now
                    time.sleep(PAUSE)
                    SCRIPTS[task](person, utterance)
                    subprocess.run(["xdotool", "key", "ctrl+shift+F10"], check=True, timeout=20)
                    process.communicate(timeout=60)
                    state = browser.state()
                    tried += 1
                    if state.raw_reward <= 0:
                        delete_episode(directory)
                        print(f"{task} seed {seed}: failed ({state.reason}), deleted")
                        continue
                    episode = read_episode(directory)
                    episode.meta.environment = EnvironmentRun("miniwob", task, seed, state.raw_reward)
                    rewrite_meta(directory, episode.meta)
                    kept += 1
                    print(f"{task} seed {seed}: {len(episode.steps)} steps, reward {state.raw_reward:g}")
    finally:
        display.stop()
    print(f"demonstrations kept {kept} of {tried} in {options.out}")


if __name__ == "__main__":
    main()
