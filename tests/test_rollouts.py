"""Which step lost a failed episode: continuations of its prefixes on the same MiniWoB++ page (`deskpilot label
--verifier rollout`), with a scripted model behind a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from conftest import deskpilot
from openai_server import ChatServer

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import EpisodeMeta, list_episodes, read_episode
from deskpilot.core.geometry import Point
from deskpilot.evaluation.rollouts import judge
from deskpilot.core.verdict import EnvironmentRun

KEY = {"OPENAI_API_KEY": "sk-test"}


def form_filler(request: dict) -> str:
    """Fills "Enter "X" into the text field and press Submit" step by step from the prompt's history; greedy
    (temperature 0) it types the wrong text (a word of the instruction, not its value: the planner asks rather than
    types text the task never gives), sampling it types the task's value."""
    done = request["messages"][-1]["content"].split("Done:\n", 1)[1].strip()
    calls = [] if done == "(nothing yet)" else done.splitlines()
    if not calls:
        return "Action: click(target='field 1')"
    if len(calls) == 1:
        return "Action: type(content='$1')" if request.get("temperature") else "Action: type(content='text')"
    return "Action: click(target='$2')"


def test_continuations_blame_the_step_after_which_the_page_could_no_longer_be_won(xdisplay, tmp_path):
    episodes, continued = tmp_path / "episodes", tmp_path / "continued"
    with ChatServer([form_filler] * 100) as server:
        collected = deskpilot("collect", "miniwob", "--tasks", "enter-text", "--episodes", "1", "--seed", "400",
                              "--policy", "model", "--model", "scripted", "--base-url", server.base_url, "--frames",
                              "none", "--out", str(episodes), env=KEY, timeout=300)
        assert collected.returncode == 0, collected.stdout + collected.stderr
        # the environment blames no step of a failed episode of several actions, not even the Submit that ended it
        assert "labels good 0 / bad 0 / unknown 3" in collected.stdout, collected.stdout
        [failed] = list_episodes(episodes)
        labelled = deskpilot("label", str(failed), "--verifier", "rollout", "--model", "scripted", "--base-url",
                             server.base_url, "--rollouts", "1", "--rollouts-dir", str(continued), env=KEY,
                             timeout=300)
        assert labelled.returncode == 0, labelled.stdout + labelled.stderr
        sampled = {request["temperature"] for request in server.requests[3:]}
    verdicts = [step.verification for step in read_episode(failed).steps if not step.action.is_terminal]
    assert [v.label for v in verdicts] == ["good", "bad", "unknown"], labelled.stdout
    assert {v.verifier for v in verdicts} == {"rollout"}
    assert verdicts[1].reason == "continuations won 1/1 before this step and none after it"
    assert sampled == {0.7}  # the continuations sample (the endpoint gets the temperature)
    # one continuation from the start, one after each of the first two steps: each re-enacted its prefix
    metas = [read_episode(d).meta for d in list_episodes(continued)]
    tags = [(m.extra["rollout"], m.environment.won) for m in metas]
    assert sorted((tag["prefix"], tag["reenacted"], won) for tag, won in tags) == \
        [(0, True, True), (1, True, True), (2, True, False)]
    again = deskpilot("label", str(failed), "--verifier", "rollout", "--model", "scripted", "--base-url",
                      "http://127.0.0.1:9/v1", "--rollouts", "1", "--rollouts-dir", str(continued), env=KEY)
    assert again.returncode == 0 and "1 bad, 1 good, 1 unknown" in again.stdout  # resumed: nothing run again
    nowhere = deskpilot("label", str(failed), "--verifier", "rollout", "--model", str(tmp_path / "nowhere"))
    assert nowhere.returncode != 0
    assert nowhere.stderr.strip().splitlines()[-1] == f"error: --model {tmp_path / 'nowhere'} is not a model folder " \
        "(or name a model served at --base-url)"


def test_pages_the_model_never_wins_and_unreenacted_prefixes_get_no_verdict():
    from deskpilot.core.episode import Episode, Step

    def failed(*kinds: ActionKind) -> Episode:
        steps = [Step(i, Action(kind=kind, point=Point(1, 1)) if kind is ActionKind.CLICK else Action(kind=kind),
                      "") for i, kind in enumerate(kinds)]
        meta = EpisodeMeta("e", "task", "agent", 0.0, environment=EnvironmentRun("miniwob", "t", 1, -1.0))
        return Episode(None, meta, steps)  # type: ignore[arg-type]

    three = failed(ActionKind.CLICK, ActionKind.CLICK, ActionKind.CLICK, ActionKind.FINISHED)
    assert judge(three, {0: (0, 4)}) == [None] * 4  # never won from the start: nothing to learn about its steps
    partial = judge(three, {0: (2, 4), 1: (1, 4)})  # the prefix of two steps never re-enacted: stop there
    assert [v.label if v else None for v in partial] == ["good", None, None, None]
    lost_last = judge(three, {0: (2, 4), 1: (3, 4), 2: (1, 4)})  # the page ended it: the last step lost it
    assert [v.label if v else None for v in lost_last] == ["good", "good", "bad", None]
    assert lost_last[0].score == 0.75
    unlucky = judge(three, {0: (2, 4), 1: (1, 4), 2: (0, 4)})  # 0/4 after a 1/4 win rate: luck as likely as blame
    assert [v.label if v else None for v in unlucky] == ["good", None, None, None]
    blamed = judge(three, {0: (2, 4), 1: (3, 4), 2: (0, 4)})  # 0/4 after 3/4: that step lost it
    assert [v.label if v else None for v in blamed] == ["good", "bad", "unknown", None]
