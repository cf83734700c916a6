"""The `deskpilot` command line: run the agent on a task, and look at what grounding sees (parse, locate).
Errors a user can cause are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import logging
import sys
import time
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Optional

import typer

from deskpilot.app import (collect_cli, detector_cli, episodes_cli, eval_cli, improve_cli, label_cli, model_cli,
                           recognizer_cli, recording_cli, train_cli)
from deskpilot.app.calibrate import MAX_ERROR, MonitorCalibration
from deskpilot.app.common import (build_agent, confirmer, err, listen_for_stop, out, plain,
                                  planner_for, write_png)
from deskpilot.grounding.factory import build_grounder
from deskpilot.core.errors import DeskpilotError, GroundingError, ScreenError, UsageError
from deskpilot.core.geometry import Monitor
from deskpilot.core.observation import Observation
from deskpilot.core.secrets import StreamScrubber, task_secrets
from deskpilot.core.settings import PLANNERS, Settings, load_settings
from deskpilot.grounding.base import Grounder
from deskpilot.planner.base import Planner

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="deskpilot: a local, trainable desktop GUI agent.")


def _load_image(path: Path) -> Observation:
    from deskpilot.core.episode import read_image

    rgb = read_image(path)
    if rgb is None:
        raise ScreenError(f"cannot read image {path} (missing, or not a PNG/JPEG)")
    return Observation(rgb, Monitor(0, 0, rgb.shape[1], rgb.shape[0]))


def _observe(image: Path | None, settings: Settings) -> Observation:
    if image is not None:
        return _load_image(image)
    from deskpilot.core.display import has_display
    from deskpilot.core.screen import Screen

    if not has_display():
        raise ScreenError("no display to look at: pass --image FILE.png, or run where DISPLAY is set")
    return Screen(settings.monitor, settings.scale).capture()


@app.command()
def parse(image: Annotated[Optional[Path], typer.Option(help="a screenshot to parse instead of the screen")] = None,
          out_file: Annotated[Optional[Path], typer.Option("--out", help="write an annotated PNG here")] = None,
          as_json: Annotated[bool, typer.Option("--json", help="print elements as JSON")] = False) -> None:
    """List the UI elements on the screen (or in --image)."""
    settings = load_settings()
    obs = _observe(image, settings)
    loading = time.perf_counter()
    grounder = build_grounder(settings)
    grounder.load()
    started = time.perf_counter()
    elements = grounder.parse(obs)
    elapsed = (time.perf_counter() - started) * 1000
    if out_file is not None:
        from deskpilot.grounding.annotate import annotate

        write_png(out_file, annotate(obs.image, obs.monitor, elements))
    if as_json:
        print(json.dumps({"elements": [e.to_dict() for e in elements], "parse_ms": round(elapsed, 1),
                          "load_ms": round((started - loading) * 1000, 1)}))
        return
    for element in elements:
        out.print(f"{element.role:<8} {list(element.box)!s:<24} {element.text}", markup=False, highlight=False)
    out.print(f"{len(elements)} elements in {elapsed:.0f} ms", style="dim")


@app.command()
def locate(description: Annotated[str, typer.Argument(help="e.g. 'the Save button', '\"Remember me\" checkbox'")],
           image: Annotated[Optional[Path], typer.Option(help="a screenshot instead of the screen")] = None,
           as_json: Annotated[bool, typer.Option("--json", help="print the element as JSON")] = False) -> None:
    """Find the element a description means; a one-line error (exit 2) when it is not there."""
    settings = load_settings()
    obs = _observe(image, settings)
    element = build_grounder(settings).locate(obs, description)
    if element is None:
        if as_json:
            print(json.dumps({"element": None}))
        raise GroundingError(f"could not find {description!r}")
    if as_json:
        print(json.dumps({"element": element.to_dict(), "point": list(element.center)}))
    else:
        out.print(f"{element.role} {list(element.box)} centre {tuple(element.center)} text {element.text!r}",
                  markup=False, highlight=False)


@app.command()
def run(task: Annotated[str, typer.Argument(help='e.g. \'type "Ada" into Full name then click "Save"\'')],
        planner: Annotated[str, typer.Option(help=f"one of: {', '.join(PLANNERS)} (auto: the offline grammar where "
                                                  "it reads the task whole, else the language model)")] = "auto",
        model: Annotated[Optional[str], typer.Option(help="model name at --base-url, or a local model folder")] = None,
        base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint, e.g. "
                                                        "http://127.0.0.1:8000/v1")] = None,
        family: Annotated[Optional[str], typer.Option(help="ui-tars-1.5 | qwen2.5-vl | ui-tars | qwen2-vl | "
                                                      "qwen3-vl | screen (default: guessed from --model)")] = None,
        mode: Annotated[Optional[str], typer.Option(help="native (model gives coordinates) | som (numbered "
                                                    "marks) | som-text (elements as text, for language "
                                                    "models)")] = None,
        max_steps: Annotated[Optional[int], typer.Option(help="step limit")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="plan and log, but never touch mouse or keys")] = False,
        episodes_dir: Annotated[Optional[Path], typer.Option(help="where the episode is written")] = None,
        demo: Annotated[bool, typer.Option("--demo", help="open the bundled demo app to work on")] = False,
        confirm: Annotated[Optional[str], typer.Option(help="ask before: never | risky | always")] = None,
        yes: Annotated[bool, typer.Option("--yes", help="approve every confirmation without asking")] = False,
        demos: Annotated[Optional[Path], typer.Option(help="recorded demonstrations: one of the same task with "
                                                      "other quoted values is replayed with them (offline "
                                                      "planner); the most similar one goes into a "
                                                      "vision-language model's prompt")] = None) -> None:
    """Let the agent do TASK on the screen. Without a display it starts a virtual one with the demo app."""
    if planner not in PLANNERS:
        raise UsageError(f"unknown planner {planner!r}; available: {', '.join(PLANNERS)}")
    settings = load_settings(planner=planner, model=model, base_url=base_url, family=family, plan_mode=mode,
                             max_steps=max_steps, dry_run=dry_run or None, episodes_dir=episodes_dir, confirm=confirm)
    from deskpilot.resources.demo import prepare_screen

    streamed: list[bool] = [False]

    # The task's secrets never reach the console, even where a model echoes one split over streamed pieces.
    scrubber = StreamScrubber([secret.value for secret in task_secrets(task)])

    def stream_thought(piece: str) -> None:
        streamed[0] = True
        err.print(plain(scrubber.feed(piece)), end="", style="dim", markup=False, highlight=False)

    from deskpilot.recorder.demos import demo_screen, describe_demo, find_demo

    shown = find_demo(task, demos) if demos is not None else None
    reuse = shown is not None and shown.same_shape and settings.planner in ("offline", "auto")
    if shown is not None:
        modelled = planner not in ("offline", "auto")
        how = ", replayed with this task's values" if reuse else ", shown to the model" if modelled else ""
        err.print(f"demonstration: {shown.episode.meta.task!r} ({shown.episode.meta.id}, similarity "
                  f"{shown.similarity:.2f}){how}", style="dim", markup=False, highlight=False)
    grounder = build_grounder(settings)
    planner_impl = None if reuse else planner_for(settings, task, grounder, on_text=stream_thought,
                                                  example=describe_demo(shown.episode) if shown else "",
                                                  example_screen=demo_screen(shown.episode) if shown else None)
    with ExitStack() as stack:
        virtual, demo_app = prepare_screen(stack, demo, settings.episodes_dir / "demo-state.json")
        if virtual:
            err.print("no display: started a virtual one (Xvfb) with the demo app", style="dim")
        elif not settings.dry_run:
            from deskpilot.app.calibrate import calibration_problem
            from deskpilot.core.screen import Screen

            problem = calibration_problem(Screen().monitors())
            if problem is not None:
                raise UsageError(problem)
        if reuse:
            from deskpilot.app.recording_cli import replay_recording
            from deskpilot.recorder.template import with_substitutions

            episode, by_text_only = with_substitutions(shown.episode, shown.values)  # type: ignore[union-attr]
            result = replay_recording(episode, settings, yes, stack, by_text_only, task=task)
        else:
            result = _run_agent(task, planner_impl, grounder, settings, yes, stack, streamed, scrubber)
        if demo_app is not None:
            out.print(f"demo app state: {demo_app.state_file.read_text()}", markup=False, highlight=False)
    if streamed[0]:
        err.print(plain(scrubber.flush()), style="dim", markup=False, highlight=False)
    style = "green" if result.ok else "red"
    out.print(plain(f"{result.outcome}: {result.detail}"), style=style, markup=False, highlight=False)
    out.print(f"episode: {result.episode_dir}", markup=False)
    if not result.ok:
        raise typer.Exit(1)


def _run_agent(task: str, planner: Planner, grounder: Grounder, settings: Settings, yes: bool,  # noqa: ANN202
               stack: ExitStack, streamed: list[bool], scrubber: StreamScrubber):
    from deskpilot.grounding.annotate import annotate
    from deskpilot.planner.agent import StepReport

    stop = listen_for_stop(settings, stack)
    last: list[StepReport] = []

    def show(report: StepReport) -> None:
        last[:] = [report]
        if streamed[0]:
            err.print(plain(scrubber.flush()), style="dim", markup=False, highlight=False)
            streamed[0] = False
        step = report.step
        took = step.timing.get("step_ms", sum(step.timing.values()))
        out.print(f"{step.index + 1:>3}. {step.action.redacted().describe()}  [{took:.0f} ms]", markup=False,
                  highlight=False)

    agent = build_agent(settings, grounder, planner, stop, confirmer(yes, settings.episodes_dir / "confirm.png"), show)
    err.print(f"stop: {settings.stop_hotkey}, Ctrl+C, or move the mouse into a screen corner", style="dim")
    result = agent.run(task, settings.max_steps)
    if last:
        report = last[0]
        shown = _last_acting_step(result.steps) or report.step
        picture = annotate(report.observation.image, report.observation.monitor, report.elements, shown.action)
        write_png(result.episode_dir / "annotated.png", picture)
        out.print(f"annotated screenshot: {result.episode_dir / 'annotated.png'}", markup=False)
    return result


def _last_acting_step(steps):  # noqa: ANN001, ANN202
    acting = [s for s in steps if not s.action.is_terminal]
    return acting[-1] if acting else None


@app.command("app")
def open_app(episodes_dir: Annotated[Optional[Path], typer.Option(help="episodes folder")] = None,
             geometry: Annotated[Optional[str], typer.Option(help="x,y,width,height of the window")] = None) -> None:
    """Open the desktop app (Run, Record, Episodes, Train, Settings). Plain `deskpilot` does this where there is a
    display."""
    from deskpilot.core.display import ensure_xauthority, has_display

    if not has_display():
        raise ScreenError("the app needs a display (DISPLAY or WAYLAND_DISPLAY); the CLI commands work without one")
    ensure_xauthority()
    box = None
    if geometry:
        try:
            x, y, width, height = (int(v) for v in geometry.split(","))
        except ValueError:
            raise UsageError(f"--geometry wants x,y,width,height, not {geometry!r}") from None
        box = (x, y, width, height)
    from deskpilot.app.window import run_app

    raise typer.Exit(run_app(load_settings(episodes_dir=episodes_dir), box))


@app.command()
def doctor(as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
           calibrate: Annotated[bool, typer.Option("--calibrate", help="also click known targets on every monitor "
                                                   "and report how far off the clicks land")] = False) -> None:
    """Check what works on this machine (display, input, hotkey, models, settings, ...); exit 1 when the agent
    cannot run here (or, with --calibrate, when clicks land off target)."""
    from deskpilot.app.doctor import diagnose

    report = diagnose()
    calibrated = _calibrate() if calibrate else []
    off = [c for c in calibrated if c.worst > MAX_ERROR]
    if as_json:
        data = report.to_dict()
        if calibrate:
            data["calibration"] = [{**asdict(c), "worst": None if c.worst == float("inf") else c.worst}
                                   for c in calibrated]
        print(json.dumps(data))
    else:
        for line in report.lines():
            out.print(line, markup=False, highlight=False)
        for number, result in enumerate(calibrated, 1):
            mark = "fail " if result in off else "ok   "
            out.print(f"{mark} calibration {number}: {result.describe()}", markup=False, highlight=False)
    if not report.can_run or off:
        raise typer.Exit(1)


def _calibrate() -> list[MonitorCalibration]:
    from deskpilot.app.calibrate import calibrate
    from deskpilot.core.display import has_display

    if not has_display():
        raise UsageError("--calibrate needs a display to click on")
    return calibrate()


app.command()(label_cli.label)
app.command()(recording_cli.record)
app.command()(recording_cli.replay)
app.add_typer(episodes_cli.episodes_app, name="episodes")
app.add_typer(train_cli.train_app, name="train")
app.add_typer(eval_cli.eval_app, name="eval")
app.add_typer(collect_cli.collect_app, name="collect")
app.command("improve")(improve_cli.improve)
app.add_typer(model_cli.model_app, name="model")
app.add_typer(detector_cli.detector_app, name="detector")
app.add_typer(recognizer_cli.recognizer_app, name="recognizer")


def main() -> None:
    if getattr(sys, "frozen", False) and sys.argv[1:2] == ["-m"] and len(sys.argv) > 2:
        # In the bundle, sys.executable is this program: `deskpilot -m deskpilot.resources.demo_app ...` (how the
        # demo app is started) runs that module, as `python -m` would.
        import runpy

        module, sys.argv = sys.argv[2], [sys.argv[2], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from deskpilot.core.display import has_display

    if len(sys.argv) == 1 and has_display():
        sys.argv.append("app")
    try:
        app()
    except DeskpilotError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
