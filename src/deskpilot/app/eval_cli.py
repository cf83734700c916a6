"""`deskpilot eval steps|miniwob|desktop|grounding-miniwob`: a model on held-out labelled steps, the whole agent on
the MiniWoB++ benchmark and on the desktop-apps suite from pixels, and grounding alone on real MiniWoB
screenshots."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, Optional

import typer

from deskpilot.app.common import (JsonOption, build_agent, confirmer, err, listen_for_stop, out,
                                  write_json)
from deskpilot.app.detector_cli import DetectorModelOption, DeviceOption, finish_report
from deskpilot.app.job_options import field_help
from deskpilot.training.jobs import TrainRequest
from deskpilot.grounding.factory import build_grounder
from deskpilot.core.errors import EvaluationError, UsageError
from deskpilot.core.settings import PLANNERS
from deskpilot.evaluation.collect import CollectConfig

if TYPE_CHECKING:
    from deskpilot.core.rule_packs import RulePack
    from deskpilot.core.settings import Settings
    from deskpilot.evaluation.miniwob.harness import EpisodeScore

eval_app = typer.Typer(help="Measure models, the agent and grounding.", no_args_is_help=True)

TasksOption = Annotated[Optional[str], typer.Option(help="comma-separated MiniWoB tasks (default: the standard 19)")]
EpisodesOption = Annotated[int, typer.Option(help="episodes per task")]
SeedOption = Annotated[int, typer.Option(help="seed of the first episode; episode i uses seed+i")]
ScaleOption = Annotated[float, typer.Option(help="Chromium's device scale factor (2 = HiDPI, legible text)")]
DesktopScaleOption = Annotated[float, typer.Option(help="1, 1.25, 1.5 or 2: the desktop as much larger, the "
                                                   "toolkits' scale factor set to match")]
MonitorsOption = Annotated[str, typer.Option(help="one, or two: a second monitor of another size left of the "
                                             "primary")]
AppsOnOption = Annotated[str, typer.Option(help="the monitor the apps open on: primary, or second (with --monitors "
                                           "two)")]

# The model, data, family and images of a planner job, as `train` takes them (training.jobs.TrainRequest).
ModelOption = Annotated[str, typer.Option(help=field_help(TrainRequest, "model"))]
DataOption = Annotated[list[Path], typer.Option(help=field_help(TrainRequest, "data"))]
FamilyOption = Annotated[Optional[str], typer.Option(help=field_help(TrainRequest, "family"))]
ImagesOption = Annotated[int, typer.Option(help=field_help(TrainRequest, "max_images"))]


def _ensure_screen(stack: ExitStack) -> None:
    from deskpilot.core.display import ensure_screen

    if ensure_screen(stack):
        err.print("no display: started a virtual one (Xvfb)", style="dim")


def _tasks(tasks: Optional[str]) -> list[str]:
    from deskpilot.evaluation.miniwob.tasks import DEFAULT_TASKS

    chosen = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else list(DEFAULT_TASKS)
    if not chosen:
        raise UsageError("--tasks names no task")
    return chosen


PlannerOption = Annotated[str, typer.Option(help=f"one of: {', '.join(PLANNERS)}")]
ModelOption = Annotated[Optional[str], typer.Option(help="model name at --base-url, or a local folder")]
BaseUrlOption = Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint")]
ModeOption = Annotated[Optional[str], typer.Option(help="native | som | som-text")]
ListTasksOption = Annotated[bool, typer.Option("--list", help="list the tasks and exit")]

@eval_app.command("steps")
def eval_steps(model: ModelOption, data: DataOption, family: FamilyOption = None, max_images: ImagesOption = 3,
               limit: Annotated[Optional[int], typer.Option(help="at most this many steps")] = None,
               planner: Annotated[str, typer.Option(help="transformers (local folder) | openai (endpoint)")]
               = "transformers",
               base_url: Annotated[Optional[str], typer.Option(help="endpoint for --planner openai")] = None,
               mode: Annotated[str, typer.Option(help="native | som-text (elements as text, for language models)")]
               = "native",
               report: Annotated[Optional[Path], typer.Option("--report", help="write the JSON report here")] = None,
               as_json: Annotated[bool, typer.Option("--json", help="print the JSON report")] = False) -> None:
    """Offline step accuracy on held-out good steps: action type, click inside the target box, text match."""
    from deskpilot.core.settings import load_settings
    from deskpilot.planner.families import resolve_family
    from deskpilot.training.evaluate import evaluate_steps

    from deskpilot.planner.som_text import ANSWER_TOKENS

    settings = load_settings(planner=planner, model=model, base_url=base_url,
                             max_new_tokens=ANSWER_TOKENS if mode == "som-text" else None)
    chosen = resolve_family(family, model)
    result = evaluate_steps(settings, list(data), chosen, max_images=max_images, limit=limit, mode=mode)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(result, indent=2))
    if as_json:
        print(json.dumps(result))
        return
    for name, value in result["metrics"].items():
        shown = "n/a" if value is None else f"{value:.3f}"
        out.print(f"{name:<18} {shown}", markup=False, highlight=False)
    out.print(f"{result['steps']} steps", style="dim")


@eval_app.command("miniwob")
def eval_miniwob(tasks: TasksOption = None, episodes: EpisodesOption = 5, seed: SeedOption = 0,
                 planner: PlannerOption = "offline",
                 model: ModelOption = None,
                 base_url: BaseUrlOption = None,
                 family: FamilyOption = None,
                 mode: Annotated[Optional[str], typer.Option(help="native | som | som-text (elements as text, for "
                                                                  "language models)")] = None,
                 scale: ScaleOption = 2.0, json_file: JsonOption = None,
                 episodes_dir: Annotated[Optional[Path], typer.Option(help="where the scored episodes go "
                                                                      "(default: <episodes>/miniwob)")] = None,
                 no_pack: Annotated[bool, typer.Option("--no-pack", help="leave the MiniWoB rule pack off: the "
                                                       "agent reads tasks as a person's agent does")] = False,
                 workers: Annotated[int, typer.Option(min=1, max=64, help="parallel workers, each with its own "
                                                      "virtual display and browser (1: this process, on this "
                                                      "display)")] = 1,
                 ray: Annotated[Optional[str], typer.Option(help=field_help(CollectConfig, "ray"))] = None) -> None:
    """The agent on MiniWoB++ from pixels, with real input on a visible Chromium; the page's reward scores it.
    With --workers or --ray the episodes run on worker processes or Ray actors, as `collect` runs them."""
    from deskpilot.core.rule_packs import NONE
    from deskpilot.core.settings import load_settings
    from deskpilot.evaluation.miniwob.rules import MINIWOB

    if planner not in PLANNERS:
        raise UsageError(f"unknown planner {planner!r}; available: {', '.join(PLANNERS)}")
    if episodes < 1:
        raise UsageError("--episodes must be at least 1")
    chosen = _tasks(tasks)
    settings = load_settings(planner=planner, model=model, base_url=base_url, family=family, plan_mode=mode,
                             confirm="never")
    settings.episodes_dir = episodes_dir or settings.episodes_dir / "miniwob"

    def show(score: EpisodeScore) -> None:
        mark = "ok  " if score.success else "FAIL"
        err.print(f"{mark} {score.task:<24} seed {score.seed:<4} reward {score.raw_reward:+.2f} "
                  f"{score.steps:>2} steps {score.seconds:5.1f} s  {score.utterance}"
                  + ("" if score.success else f"  [{score.outcome}: {score.detail}]"),
                  markup=False, highlight=False)

    if workers > 1 or ray:
        asked = {"planner": planner, "model": model, "base_url": base_url, "family": family, "plan_mode": mode}
        config = CollectConfig(tasks=tuple(chosen), episodes=episodes, out=settings.episodes_dir, seed=seed,
                               policy="planner", workers=workers, scale=scale, ray=ray, pack=not no_pack,
                               settings={name: value for name, value in asked.items() if value is not None})
        report = _evaluate_on_workers(config, show)
    else:
        report = _evaluate_here(settings, chosen, episodes, seed, scale, NONE if no_pack else MINIWOB, show)
    report.update({"rule_pack": "none" if no_pack else MINIWOB.name, "planner": planner,
                   "mode": settings.plan_mode if planner != "offline" else None, "model": model,
                   "seed": seed, "episodes_dir": str(settings.episodes_dir), "workers": workers, "ray": ray})
    _print_miniwob(report)
    write_json(json_file, report)
    if report.get("failed_workers"):
        raise typer.Exit(1)


def _evaluate_here(settings: Settings, tasks: list[str], episodes: int, seed: int, scale: float, rules: RulePack,
                   show: Callable[[EpisodeScore], None]) -> dict[str, Any]:
    """`eval miniwob` in this process, on this display (a virtual one where there is none)."""
    from deskpilot.evaluation.miniwob.harness import evaluate_miniwob
    from deskpilot.evaluation.miniwob.page import MiniWobBrowser
    from deskpilot.planner.factory import build_planner

    grounder = build_grounder(settings)
    with ExitStack() as stack:
        _ensure_screen(stack)
        stop = listen_for_stop(settings, stack)
        agent = build_agent(settings, grounder, build_planner(settings, grounder=grounder), stop, confirmer(True),
                            None)
        browser = stack.enter_context(MiniWobBrowser(scale=scale).start(tasks[0]))
        return evaluate_miniwob(agent, browser, tasks, episodes, seed, on_episode=show, rules=rules)


def _evaluate_on_workers(config: CollectConfig, show: Callable[[EpisodeScore], None]) -> dict[str, Any]:
    """`eval miniwob` on `collect`'s workers (processes, or Ray actors with config.ray): every (task, seed) once,
    in the same report; a worker that fails is named in `failed_workers`."""
    from deskpilot.evaluation.collect import Collected, CollectSummary, run_jobs
    from deskpilot.evaluation.miniwob.harness import EpisodeScore, summarize

    scores: dict[str, list[EpisodeScore]] = {task: [] for task in config.tasks}

    def finished(episode: Collected) -> None:
        score = EpisodeScore(episode.task, episode.seed, episode.utterance, episode.raw_reward, episode.reward,
                             episode.steps, episode.seconds, episode.outcome, episode.detail, Path(episode.episode),
                             episode.checked)
        scores[episode.task].append(score)
        show(score)

    config.out.mkdir(parents=True, exist_ok=True)
    jobs = [(task, config.seed + n) for task in config.tasks for n in range(config.episodes)]
    summary = run_jobs(config, jobs, CollectSummary(), finished)
    ran = {task: sorted(runs, key=lambda r: r.seed) for task, runs in scores.items() if runs}
    return {**summarize(ran, scale=config.scale), "failed_workers": summary.failed_workers,
            "seconds": round(summary.seconds, 1)}


@eval_app.command("desktop")
def eval_desktop(tasks: Annotated[Optional[str], typer.Option(help="comma-separated desktop tasks (default: all)")]
                 = None,
                 repeats: Annotated[int, typer.Option(help="episodes per task")] = 1,
                 scale: DesktopScaleOption = 1.0,
                 monitors: MonitorsOption = "one",
                 apps_on: AppsOnOption = "primary",
                 planner: PlannerOption = "offline",
                 model: ModelOption = None,
                 base_url: BaseUrlOption = None,
                 family: FamilyOption = None,
                 mode: ModeOption = None,
                 json_file: JsonOption = None,
                 episodes_dir: Annotated[Optional[Path], typer.Option(help="where the scored episodes go "
                                                                      "(default: <episodes>/desktop)")] = None,
                 list_tasks: ListTasksOption = False,
                 instructions: Annotated[Optional[Path], typer.Option(
                     help="a JSON file of the suite's tasks in other words ({\"instructions\": [{\"task\": NAME, "
                          "\"text\": WORDS}, ...]}): each task run with those words")] = None) -> None:
    """The agent on real Debian applications (Mousepad, FeatherPad, Galculator, PCManFM, Zenity, xterm, Gnumeric,
    AbiWord) on its own virtual desktop with Openbox; each task's checker reads the app's own output."""
    from deskpilot.evaluation.desktop import choose_tasks, instructed_tasks

    try:
        chosen = instructed_tasks(instructions) if instructions is not None else \
            choose_tasks([t.strip() for t in tasks.split(",") if t.strip()] if tasks else None)
    except EvaluationError as exc:
        raise UsageError(str(exc)) from None
    if list_tasks:
        for task in chosen:
            out.print(f"{task.name:<28} {task.app:<11} {task.text}", markup=False, highlight=False)
        return
    _run_desktop_tasks(chosen, repeats, DesktopLayout(scale, monitors, apps_on), planner, model, base_url, family,
                       mode, json_file, episodes_dir, "desktop")


@eval_app.command("forms")
def eval_forms(toolkits: Annotated[str, typer.Option(help="comma-separated: qt, tk, gtk, html")] = "qt,tk,gtk,html",
               episodes: Annotated[int, typer.Option(help="forms per toolkit")] = 5,
               seed: Annotated[int, typer.Option(help="the first form's seed (each seed: one form and goal)")] = 0,
               held_out: Annotated[bool, typer.Option("--held-out", help="forms of the held-out themes, whose "
                                                      "words no training form uses")] = False,
               wording: Annotated[str, typer.Option(help="canonical (the offline grammar's words, to collect "
                                                    "demonstrations) or paraphrase (everyday words)")]
               = "canonical",
               paraphrases: Annotated[int, typer.Option(help="other wordings of each task kept in its episode, "
                                                        "for training")] = 0,
               scale: DesktopScaleOption = 1.0,
               monitors: MonitorsOption = "one",
               apps_on: AppsOnOption = "primary",
               planner: PlannerOption = "offline",
               model: ModelOption = None,
               base_url: BaseUrlOption = None,
               family: FamilyOption = None,
               mode: ModeOption = None,
               json_file: JsonOption = None,
               episodes_dir: Annotated[Optional[Path], typer.Option(help="where the scored episodes go "
                                                                    "(default: <episodes>/forms)")] = None,
               list_tasks: ListTasksOption = False) -> None:
    """The agent on synthetic forms (text fields, drop-downs, check boxes, radio groups, buttons) in Qt, Tk, GTK
    and a web page in Chromium, each with a goal reachable from its start; the form's own state is the checker.
    Collect demonstrations with the offline planner and `--paraphrases`, or score understanding with `--wording
    paraphrase --held-out`."""
    from deskpilot.evaluation.synthetic.tasks import form_task

    if wording not in ("canonical", "paraphrase"):
        raise UsageError(f"--wording must be canonical or paraphrase, not {wording!r}")
    if episodes < 1 or paraphrases < 0:
        raise UsageError("--episodes must be at least 1 and --paraphrases at least 0")
    try:
        chosen = [form_task(toolkit.strip(), number, held_out, wording, paraphrases)  # type: ignore[arg-type]
                  for number in range(seed, seed + episodes) for toolkit in toolkits.split(",") if toolkit.strip()]
    except EvaluationError as exc:
        raise UsageError(str(exc)) from None
    if list_tasks:
        for task in chosen:
            out.print(f"{task.name:<28} {task.text}", markup=False, highlight=False)
        return
    _run_desktop_tasks(chosen, 1, DesktopLayout(scale, monitors, apps_on), planner, model, base_url, family, mode,
                       json_file, episodes_dir, "forms")


class DesktopLayout(NamedTuple):
    """The desktop the tasks run on: its scale, one or two monitors, and the monitor the apps open on."""

    scale: float
    monitors: str
    apps_on: str


def _run_desktop_tasks(chosen: list[Any], repeats: int, layout: DesktopLayout, planner: str, model: str | None,
                       base_url: str | None, family: str | None, mode: str | None, json_file: Path | None,
                       episodes_dir: Path | None, folder: str) -> None:
    """Desktop tasks on their own virtual desktop under Openbox, each scored by its checker; the table and report."""
    from deskpilot.core.settings import load_settings
    from deskpilot.evaluation.desktop import DesktopScore, evaluate_desktop
    from deskpilot.evaluation.desktop_session import DesktopSession
    from deskpilot.planner.factory import build_planner

    if planner not in PLANNERS:
        raise UsageError(f"unknown planner {planner!r}; available: {', '.join(PLANNERS)}")
    if repeats < 1:
        raise UsageError("--repeats must be at least 1")
    settings = load_settings(planner=planner, model=model, base_url=base_url, family=family, plan_mode=mode,
                             confirm="never")
    settings.episodes_dir = episodes_dir or settings.episodes_dir / folder
    with ExitStack() as stack:
        try:  # its own display: started before any X client
            session = stack.enter_context(DesktopSession(layout.scale, monitors=layout.monitors,
                                                         apps_on=layout.apps_on))
        except EvaluationError as exc:
            raise UsageError(str(exc)) from None
        grounder = build_grounder(settings)
        stop = listen_for_stop(settings, stack)
        agent = build_agent(settings, grounder, build_planner(settings, grounder=grounder), stop, confirmer(True),
                            None, no_go=lambda: [])

        def show(score: DesktopScore) -> None:
            mark = "ok  " if score.success else "FAIL"
            err.print(f"{mark} {score.task:<28} {score.steps:>2} steps {score.seconds:5.1f} s  {score.text}"
                      + ("" if score.success else f"  [{score.outcome}: {score.detail}; found: {score.found}]"),
                      markup=False, highlight=False)

        report = evaluate_desktop(agent, session, chosen, repeats, on_episode=show)
    report.update({"planner": planner, "model": model, "episodes_dir": str(settings.episodes_dir),
                   "monitors": layout.monitors, "apps_on": layout.apps_on})
    out.print(f"{'task':<28} {'app':<11} {'success':>8} {'steps':>6} {'s/step':>7}", markup=False)
    for name, row in report["tasks"].items():
        out.print(f"{name:<28} {row['app']:<11} {row['success_rate']:>8.2f} {row['mean_steps']:>6.1f} "
                  f"{row['seconds_per_step']:>7.2f}", markup=False, highlight=False)
    where = "" if layout.monitors == "one" else f", two monitors, apps on the {layout.apps_on}"
    out.print(f"mean success rate {report['mean_success_rate']:.3f} (scale {layout.scale:g}{where})", markup=False,
              highlight=False)
    write_json(json_file, report)




@eval_app.command("grounding-miniwob")
def eval_grounding_miniwob(tasks: TasksOption = None, episodes: EpisodesOption = 5, seed: SeedOption = 0,
                           scale: ScaleOption = 2.0, json_file: JsonOption = None) -> None:
    """Grounding alone on real MiniWoB screenshots, DOM boxes as ground truth: parse() recall and locate()
    accuracy for the utterance's first target."""
    from deskpilot.core.screen import Screen
    from deskpilot.core.settings import load_settings
    from deskpilot.evaluation.grounding import ScreenScore, evaluate_grounding
    from deskpilot.evaluation.miniwob.page import MiniWobBrowser

    if episodes < 1:
        raise UsageError("--episodes must be at least 1")
    chosen = _tasks(tasks)
    settings = load_settings()
    with ExitStack() as stack:
        _ensure_screen(stack)
        browser = stack.enter_context(MiniWobBrowser(scale=scale).start(chosen[0]))

        def show(score: ScreenScore) -> None:
            located = {None: "-", True: "ok", False: "MISS"}[score.located]
            err.print(f"{score.task:<24} seed {score.seed:<4} parsed {score.found}/{score.total}  locate {located}"
                      + (f" {score.target}" if score.target else ""), markup=False, highlight=False)

        report = evaluate_grounding(build_grounder(settings), browser, Screen(), chosen, episodes, seed,
                                    on_screen=show)
    report["scale"] = scale
    out.print(f"parse recall {report['parse_recall']:.3f} (clickable {report['clickable_recall']:.3f}), locate "
              f"accuracy {report['locate_accuracy']:.3f} over {report['located_screens']} targets, "
              f"{report['screens']} screens", markup=False, highlight=False)
    write_json(json_file, report)


@eval_app.command("detector-miniwob")
def eval_detector_miniwob(tasks: TasksOption = None, episodes: EpisodesOption = 5, seed: SeedOption = 0,
                          scale: ScaleOption = 2.0, json_file: JsonOption = None,
                          model: DetectorModelOption = None, device: DeviceOption = "auto") -> None:
    """The UI-element detector alone on real MiniWoB screenshots: precision and recall per class at IoU 0.5 with
    the DOM's controls as ground truth (MiniWoB pages are never in its training data)."""
    from deskpilot.core.screen import Screen
    from deskpilot.grounding.detector import UiDetector
    from deskpilot.evaluation.detector_miniwob import evaluate_pages
    from deskpilot.evaluation.grounding import miniwob_screens
    from deskpilot.evaluation.miniwob.page import MiniWobBrowser

    if episodes < 1:
        raise UsageError("--episodes must be at least 1")
    chosen = _tasks(tasks)
    detector = UiDetector(model, device)
    with ExitStack() as stack:
        _ensure_screen(stack)
        browser = stack.enter_context(MiniWobBrowser(scale=scale).start(chosen[0]))
        pages = ((obs.image, page) for _, _, obs, page, _ in miniwob_screens(browser, Screen(), chosen, episodes,
                                                                              seed))
        report = evaluate_pages(detector, pages)
    finish_report(report, detector, json_file, scale=scale, tasks=chosen)


def _print_miniwob(report: dict) -> None:
    out.print(f"{'task':<24} {'success':>8} {'reward':>7} {'episodes':>8} {'s/step':>7}", markup=False)
    for task, row in report["tasks"].items():
        out.print(f"{task:<24} {row['success_rate']:>8.2f} {row['mean_reward']:>7.2f} {row['episodes']:>8} "
                  f"{row['seconds_per_step']:>7.2f}", markup=False, highlight=False)
    out.print(f"mean success rate {report['mean_success_rate']:.3f} (scale {report['scale']:g})", markup=False,
              highlight=False)
