"""Per-step overhead a model planner adds on top of the model itself, on a 1280x800 screenshot of the demo app:
resizing the screenshot, encoding it (PNG + base64, once per step), building the prompt around the encoded
screenshots (with and without history),
drawing set-of-marks, and parsing the reply. Prints the median of repeated runs per figure.

    python benchmarks/planner_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import tempfile
from contextlib import ExitStack
from pathlib import Path

from deskpilot.resources.demo import prepare_screen
from deskpilot.core.action_text import parse_response
from deskpilot.core.screen import Screen
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.annotate import annotate
from deskpilot.planner.context import PromptBuilder, Screenshot, Turn, image_url, model_image
from deskpilot.planner.families import FAMILIES, load_template
from timing import median_ms

REPLY = "Thought: The Save button is at the bottom left.\nAction: click(point='<point>155 567</point>')"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        prepare_screen(stack, demo=True, state_file=Path(tmp) / "state.json")
        obs = Screen().capture()
        elements = OcrGrounder().parse(obs)
        space = FAMILIES["ui-tars-1.5"].space(obs.monitor)
        image = model_image(obs.image, space)
        builder = PromptBuilder(load_template("native"))
        current = Screenshot.of(image)
        history = [Turn(Screenshot.of(image), REPLY) for _ in range(5)]
        figures = {
            "resize screenshot": lambda: model_image(obs.image, space),
            "encode image (png+b64)": lambda: image_url(image),
            "prompt, no history": lambda: builder.messages("click Save", [], current, space),
            "prompt, 5 turns/3 images": lambda: builder.messages("click Save", history, current, space),
            "set-of-marks drawing": lambda: annotate(obs.image, obs.monitor, elements, numbered=True),
            "parse reply": lambda: parse_response(REPLY, space),
        }
        print(f"screen {obs.size[0]}x{obs.size[1]} -> model image {image.shape[1]}x{image.shape[0]}, "
              f"{len(elements)} elements")
        for name, fn in figures.items():
            print(f"{name:<28} median {median_ms(fn, args.repeats):7.2f} ms  (n={args.repeats})", flush=True)
        cached = median_ms(lambda: builder.messages("x", history, Screenshot.of(image), space), args.repeats)
        baseline = median_ms(lambda: [Screenshot.of(image) for _ in range(3)], args.repeats)
        print(f"{'step prompt, 3 images':<28} median {cached:7.2f} ms  (n={args.repeats})  "
              f"ratio {cached / baseline:.2f} "
              f"of re-encoding every image each step ({baseline:.1f} ms)")


if __name__ == "__main__":
    main()
