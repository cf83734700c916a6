"""The model's other answers on each screen of a failed episode, played out on the same MiniWoB++ page (`deskpilot
label --verifier branch`), with a scripted model behind a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import itertools

from conftest import deskpilot
from openai_server import ChatServer

from deskpilot.core.actions import Action, ActionKind
from deskpilot.core.episode import Episode, EpisodeMeta, Step, list_episodes, read_episode
from deskpilot.core.geometry import Point
from deskpilot.evaluation.branches import Played, judge
from deskpilot.core.verdict import EnvironmentRun

KEY = {"OPENAI_API_KEY": "sk-test"}


def form_filler() -> object:
    """Fills "Enter "X" into the text field and press Submit" from the prompt's history; on the typing screen its
    answers alternate between a wrong text (a word of the instruction, not its value) and the task's value, so two
    answers asked on that screen differ (an endpoint that samples), while the first answer it ever gives there is
    the wrong one."""
    typing = itertools.cycle(["Action: type(content='text')", "Action: type(content='$1')"])

    def reply(request: dict) -> str:
        done = request["messages"][-1]["content"].split("Done:\n", 1)[1].strip()
        calls = [] if done == "(nothing yet)" else done.splitlines()
        if not calls:
            return "Action: click(target='field 1')"
        return next(typing) if len(calls) == 1 else "Action: click(target='$2')"
    return reply


def test_branches_find_the_answer_that_wins_and_blame_the_one_taken(xdisplay, tmp_path):
    episodes, branches = tmp_path / "episodes", tmp_path / "branches"
    scripted = form_filler()
    with ChatServer([scripted] * 100) as server:
        collected = deskpilot("collect", "miniwob", "--tasks", "enter-text", "--episodes", "1", "--seed", "400",
                              "--policy", "model", "--model", "scripted", "--base-url", server.base_url, "--frames",
                              "none", "--out", str(episodes), env=KEY, timeout=300)
        assert collected.returncode == 0, collected.stdout + collected.stderr
        [failed] = list_episodes(episodes)
        labelled = deskpilot("label", str(failed), "--verifier", "branch", "--model", "scripted", "--base-url",
                             server.base_url, "--answers", "2", "--temperature", "0.7", "--rollouts-dir",
                             str(branches), env=KEY, timeout=300)
        assert labelled.returncode == 0, labelled.stdout + labelled.stderr
    verdicts = [step.verification for step in read_episode(failed).steps if not step.action.is_terminal]
    assert [v.label for v in verdicts] == ["good", "bad", "unknown"], labelled.stdout
    assert verdicts[1].reason == "this answer lost with the model going on, where type(content='$1') won on " \
                                    "the same screen"
    played = {(e.meta.extra["rollout"]["prefix"], e.meta.extra["rollout"]["answer"]): e
              for e in map(read_episode, list_episodes(branches))}
    assert len(played) == 6  # 3 screens x 2 answers
    outcome = {key: (e.meta.extra["rollout"]["branched"], e.meta.environment.won) for key, e in played.items()}
    # one answer on the first and last screens (the second rank is not there to play); two on the typing screen
    assert outcome == {(0, 0): (True, True), (0, 1): (False, False), (1, 0): (True, False), (1, 1): (True, True),
                       (2, 0): (True, False), (2, 1): (False, False)}
    wrong = [s.verification.label for s in played[(1, 0)].steps if not s.action.is_terminal]
    assert wrong == ["unknown", "bad", "unknown"]  # the losing branch's own answer is bad, beside the winning one
    right = [s.verification.label for s in played[(1, 1)].steps if not s.action.is_terminal]
    assert right == ["good", "good", "good"]  # a won branch: a success to learn from, every step good
    with ChatServer([]) as idle:  # resumed: nothing is played again
        again = deskpilot("label", str(failed), "--verifier", "branch", "--model", "scripted", "--base-url",
                          idle.base_url, "--answers", "2", "--rollouts-dir", str(branches), env=KEY)
        assert again.returncode == 0 and "1 bad, 1 good, 1 unknown" in again.stdout, again.stdout + again.stderr
        assert idle.requests == []


def test_a_step_is_blamed_only_against_an_answer_that_won_on_its_screen():
    def failed(*calls: str) -> Episode:
        steps = [Step(i, Action(kind=ActionKind.CLICK, point=Point(1, 1)), "", thought=call)
                 for i, call in enumerate(calls)]
        steps.append(Step(len(calls), Action(kind=ActionKind.FINISHED), ""))
        meta = EpisodeMeta("e", "task", "agent", 0.0, environment=EnvironmentRun("miniwob", "t", 1, -1.0))
        return Episode(None, meta, steps)  # type: ignore[arg-type]

    episode = failed("a", "b", "c")
    labels = lambda verdicts: [v.label if v else None for v in verdicts]  # noqa: E731
    assert labels(judge(episode, {0: Played(set(), {"a", "x"})})) == [None] * 4  # nothing won: nothing to say
    assert labels(judge(episode, {0: Played({"a"}, set())})) == ["good", None, None, None]  # next screen unplayed
    # "b" lost where "y" won on its screen: bad, the rest unknown
    assert labels(judge(episode, {0: Played({"a"}, set()), 1: Played({"y"}, {"b"}), 2: Played(set(), {"c"})})) == \
        ["good", "bad", "unknown", None]
    # "b" not played on its screen: good while an answer after it still wins, bad when none does
    assert labels(judge(episode, {0: Played({"x"}, set()), 1: Played({"y"}, set()), 2: Played({"c"}, set())})) == \
        ["good", "good", "good", None]
    assert labels(judge(episode, {0: Played({"x"}, set()), 1: Played({"y"}, set()), 2: Played(set(), {"z"})})) == \
        ["good", "bad", "unknown", None]
    # the last step, not played, after which the page ended the episode as lost
    assert labels(judge(episode, {0: Played({"a"}, set()), 1: Played({"b"}, set()), 2: Played({"z"}, set())})) == \
        ["good", "good", "bad", None]
