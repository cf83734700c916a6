"""Fuzzing for a fixed time: the action parser (model output), the episode reader (damaged files) and the settings
loader (a hostile config file) get random input; any exception other than their documented error type is a crash.
Prints one line per target: inputs tried, documented errors, crashes (want 0), slowest input, and the median time
per input as a ratio to parsing one well-formed action in the same run.

    python benchmarks/fuzz_actions.py [--seconds 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from deskpilot.core.action_text import parse_response
from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.coords import CoordinateSpace
from deskpilot.core.episode import EpisodeWriter, Step, read_episode
from deskpilot.core.errors import ActionParseError, EpisodeError, SettingsError
from deskpilot.core.geometry import Monitor, Point
from deskpilot.core.plain_text import plain
from deskpilot.core.settings import load_settings

from timing import median_ms

MONITOR = Monitor(0, 0, 1280, 800)
FRAGMENTS = ["click", "type", "scroll", "wait", "drag", "hotkey", "press", "finished", "call_user", "(", ")", "[",
             "]", "'", '"', ",", "=", "point=", "<point>", "</point>", "1e999", "9" * 309, "nan", "inf", "-",
             "100 200", "5.5", "direction='down'", "amount=", "\\", " ", "content=", "Thought: ", "\nAction: ", "\n",
             "```", "element=", "seconds=", "<|box_start|>", "start_box=", "end_point=", "key='ctrl", "{{password}}",
             "\x00", "\u202e", "😀", "((((((", "))))))"]
SETTINGS_FRAGMENTS = ["planner", "=", '"openai"', "max_steps", "-1", "1e999", "[", "]", "{", "}", "\n", "scale",
                      "0", "nan", "stop_hotkey", '"ctrl+alt+f1"', '"', "'", "episodes_dir", "[[x]]", "extra", "true",
                      "confirm", '"sometimes"', "\x00", "\\u0000", "inf", "monitor", "-5", "\nsettle_timeout = inf\n",
                      "\nlocate_timeout = nan\n", "\nplanner_timeout = 1e300\n", "a = " + "[" * 3000,
                      "]" * 3000, "[a.b.c.d.e.f.g.h]", "x = {y = {z = {w = 1}}}"]
# hostile values for one field of a step or of episode.json: paths out of the folder, wrong types, escapes
HOSTILE_VALUES = [None, [], {}, 1, -1, 1e308, True, "", "/etc/passwd", "../../../../etc/passwd", "frames/../../x",
                  "frames/\x00.png", "\x1b]52;c;cHduZWQ=\x07", "\x1b[2J", {"label": None}, {"label": []}, [[[[]]]],
                  "x" * 5000, {"x": "slow"}, ["frames/000001.png"]]
STEP_FIELDS = ["index", "action", "before", "after", "thought", "monitor", "elements", "timing", "verification",
               "reward", "window", "seen", "dry_run"]
META_FIELDS = ["id", "task", "source", "started", "finished", "outcome", "detail", "app", "model", "extra"]


def random_text(rng: random.Random, fragments: list[str]) -> str:
    if rng.random() < 0.3:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(0, 120)))
    return "".join(rng.choice(fragments) if rng.random() < 0.8 else chr(rng.randrange(32, 127))
                   for _ in range(rng.randrange(0, 40)))


def fuzz(name: str, seconds: float, make: Callable[[random.Random], object], run: Callable[[object], object],
         documented: type[Exception], rng: random.Random, baseline_ms: float) -> None:
    tried = errors = crashes = 0
    times: list[float] = []
    first_crash = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = make(rng)
        started = time.perf_counter()
        try:
            run(value)
        except documented:
            errors += 1
        except Exception:  # noqa: BLE001 - what a fuzzer is for
            crashes += 1
            first_crash = first_crash or f"{traceback.format_exc().splitlines()[-1]} on {value!r:.120}"
        times.append((time.perf_counter() - started) * 1000)
        tried += 1
    median = statistics.median(times)
    print(f"fuzz {name}: {tried} inputs, {errors} {documented.__name__}, {crashes} crashes, "
          f"slowest {max(times):.1f} ms, median {median:.3f} ms/input = "
          f"{median / baseline_ms:.2f}x one well-formed parse")
    if first_crash:
        print(f"  first crash: {first_crash}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="time per target")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the reader warns about every damaged line it skips: that is expected here
    rng = random.Random(args.seed)
    spaces = [CoordinateSpace.for_model(MONITOR, mode) for mode in ("screen", "resized", "relative1000")]
    good = "Thought: save it\nAction: click(point='<point>100 200</point>')"
    baseline = median_ms(lambda: parse_response(good, spaces[1]), repeats=200, warmup=20)
    print(f"baseline: one well-formed parse {baseline:.3f} ms (median of 200)")

    fuzz("action parser", args.seconds, lambda r: (random_text(r, FRAGMENTS), r.choice(spaces)),
         lambda v: parse_response(*v), ActionParseError, rng, baseline)  # type: ignore[misc]

    with tempfile.TemporaryDirectory() as tmp:
        writer = EpisodeWriter.create(tmp, "fuzz me")
        frame = writer.add_frame(np.zeros((20, 20, 3), np.uint8))
        for index in range(3):
            writer.append(Step(index, Action(kind=ActionKind.CLICK, point=Point(5, 5)), frame, frame))
        writer.finish("success")
        originals = {name: (writer.directory / name).read_bytes() for name in ("episode.json", "steps.jsonl")}

        def damaged(r: random.Random) -> tuple[str, bytes]:
            name = r.choice(list(originals))
            data = bytearray(originals[name])
            for _ in range(r.randrange(1, 6)):
                choice = r.random()
                if choice < 0.4 and data:
                    data[r.randrange(len(data))] = r.randrange(256)
                elif choice < 0.6:
                    del data[r.randrange(len(data) + 1):]
                elif choice < 0.8:
                    data[r.randrange(len(data) + 1):0] = random_text(r, ['{"', '":', "[", "]", "null", "1e999",
                                                                         '"index"', "\n", "}"]).encode()
                else:
                    data = bytearray(json.dumps(r.choice([[], None, 1, "x", {"id": []}, [[[]]]])).encode())
            return name, bytes(data)

        def read_damaged(value: object) -> None:
            name, data = value  # type: ignore[misc]
            for other, original in originals.items():
                (writer.directory / other).write_bytes(data if other == name else original)
            read_episode(writer.directory)

        fuzz("episode reader", args.seconds, damaged, read_damaged, EpisodeError, rng, baseline)

        def hostile(r: random.Random) -> tuple[str, str, object]:
            return r.choice([("steps.jsonl", r.choice(STEP_FIELDS)), ("episode.json", r.choice(META_FIELDS))]) + \
                (r.choice(HOSTILE_VALUES),)

        def read_hostile(value: object) -> None:
            """Read it as `episodes show` and `export` do: every frame path must stay inside the folder, and what
            is printed carries no escape sequence."""
            name, key, bad = value  # type: ignore[misc]
            for other, original in originals.items():
                if other != name:
                    (writer.directory / other).write_bytes(original)
                    continue
                lines = [json.loads(line) for line in original.decode().splitlines()] if other == "steps.jsonl" \
                    else [json.loads(original)]
                lines[0][key] = bad
                (writer.directory / other).write_text("\n".join(json.dumps(line) for line in lines) + "\n")
            episode = read_episode(writer.directory)
            shown = plain(f"{episode.meta.task} {episode.meta.outcome} {episode.meta.detail}")
            for step in episode.steps:
                for frame_name in (step.before, step.after):
                    if frame_name:
                        episode.frame_path(frame_name).relative_to(writer.directory.resolve())
                shown += plain(f"{step.action.describe()} {step.thought} {step.verification}")
            if "\x1b" in shown:
                raise AssertionError("an escape sequence reached the terminal")

        fuzz("hostile episode folders", args.seconds, hostile, read_hostile, EpisodeError, rng, baseline)

        config = Path(tmp) / "config.toml"
        os.environ["DESKPILOT_CONFIG"] = str(config)

        def load(value: object) -> None:
            config.write_text(str(value), encoding="utf-8", errors="surrogatepass")
            load_settings()

        fuzz("settings loader", args.seconds, lambda r: random_text(r, SETTINGS_FRAGMENTS), load, SettingsError, rng,
             baseline)


if __name__ == "__main__":
    main()
