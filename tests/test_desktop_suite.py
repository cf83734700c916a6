"""The desktop-apps suite on real Debian applications: `deskpilot eval desktop` starts its own Xvfb, D-Bus and
Openbox, opens each task's application in a fresh home, lets the agent act from pixels and scores it with a checker
that reads the application's own output. The checkers themselves are exercised against real files and dialogs."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import TESTS_DIR, deskpilot

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.errors import EvaluationError
from deskpilot.evaluation.desktop import choose_tasks, instructed_tasks
from deskpilot.evaluation.desktop_checks import TaskRun, all_of, document_text, file_text, is_gone, printed
from deskpilot.evaluation.desktop_tasks import SMOKE_TASKS, TASKS

APPS = ("openbox", "mousepad", "galculator", "zenity", "xclip", "dbus-daemon")
needs_apps = pytest.mark.skipif(any(shutil.which(a) is None for a in APPS),
                                reason="the desktop suite's applications are installed by installers/setup.sh --bench")


@pytest.mark.display
@needs_apps
def test_eval_desktop_scores_real_apps_and_keeps_labelled_episodes(tmp_path):
    report_file, episodes = tmp_path / "report.json", tmp_path / "episodes"
    result = deskpilot("eval", "desktop", "--tasks", ",".join(SMOKE_TASKS), "--json", str(report_file),
                       "--episodes-dir", str(episodes), timeout=400)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(report_file.read_text())
    assert list(report["tasks"]) == list(SMOKE_TASKS) and report["scale"] == 1
    assert report["mean_success_rate"] == 1.0, result.stderr[-3000:]
    assert set(report["apps"]) == {"Zenity", "Mousepad", "Galculator", "FeatherPad"}
    saved = [read_episode(path) for path in list_episodes(episodes)]
    assert sorted(e.meta.environment.task for e in saved) == sorted(SMOKE_TASKS)
    for episode in saved:
        assert episode.meta.environment.reward == 1.0 and episode.meta.app.startswith("desktop/")
        acting = [s for s in episode.steps if not s.action.is_terminal]
        assert acting and all(s.verification.label == "good" for s in acting)
        assert acting[-1].reward == 1.0  # the step after which the checker passed
    # GTK and Qt apps expose their trees: targets came from the accessibility source, with exact boxes
    used = [e for episode in saved for step in episode.steps for e in step.elements]
    assert any(e.source == "accessibility" for e in used)


def test_every_task_is_well_formed_and_the_suite_spans_the_apps():
    assert len(TASKS) >= 40 and len({t.name for t in TASKS}) == len(TASKS)
    assert len({t.app for t in TASKS}) >= 6
    skills = {skill for task in TASKS for skill in task.skills}
    assert {"menu", "file dialog", "list", "shortcut", "calendar", "slider", "dialog", "tool bar"} <= skills
    with pytest.raises(EvaluationError, match="unknown desktop task"):
        choose_tasks(["no-such-task"])


@pytest.mark.parametrize("name", ["desktop_suite.json", "desktop_suite_2.json", "desktop_suite_3.json",
                                  "desktop_suite_4.json", "desktop_suite_5.json",
                                  "desktop_suite_6.json", "desktop_suite_7.json", "desktop_suite_8.json",
                                  "desktop_suite_9.json"])
def test_the_suite_driven_by_instructions_in_other_words_keeps_each_tasks_start_and_checker(tmp_path, name):
    held_out = instructed_tasks(TESTS_DIR.parent / "benchmarks" / "heldout" / name)
    known = {task.name: task for task in TASKS}
    assert len(held_out) >= 30 and all(task.text != known[task.name].text for task in held_out)
    assert all(task.check is known[task.name].check and task.launch == known[task.name].launch for task in held_out)
    bad = tmp_path / "bad.json"
    for text in ("not json", '{"instructions": [{"task": "zenity-list"}]}',
                 '{"instructions": [{"task": "no-such-task", "text": "x"}]}'):
        bad.write_text(text)
        with pytest.raises(EvaluationError) as raised:
            instructed_tasks(bad)
        assert "\n" not in str(raised.value)
    result = deskpilot("eval", "desktop", "--instructions", str(bad), "--list")
    assert result.returncode == 2 and "unknown desktop task" in result.stderr


def test_file_and_document_checkers_read_what_is_on_disk(tmp_path):
    run = TaskRun(tmp_path, session=None)  # type: ignore[arg-type] - file checks never touch the desktop
    (tmp_path / "Documents").mkdir()
    note = tmp_path / "Documents/note.txt"
    assert file_text("Documents/note.txt", "hi")(run) == (False, "no file Documents/note.txt")
    note.write_text("hi  there\n")
    assert file_text("Documents/note.txt", "hi there")(run)[0]
    assert not file_text("Documents/note.txt", "hi")(run)[0]
    assert not all_of(file_text("Documents/note.txt", "hi there"), is_gone("Documents/note.txt"))(run)[0]
    doc = tmp_path / "Documents/memo.abw"
    doc.write_text('<?xml version="1.0"?><abiword xmlns="http://www.abisource.com/awml.dtd"><section><p>Memo: '
                   '<c props="font-weight:bold">Important</c></p></section></abiword>')
    assert document_text("Documents/memo.abw", "Memo: Important", bold="Important")(run)[0]
    assert not document_text("Documents/memo.abw", "Memo: Important", bold="Memo:")(run)[0]


def test_printed_checker_waits_for_the_dialog_and_reads_its_answer(tmp_path):
    process = subprocess.Popen(["sh", "-c", "read line; echo $line"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    run = TaskRun(tmp_path, session=None, processes=[process])  # type: ignore[arg-type]
    assert printed("Ada")(run) == (False, "the dialog is still open")
    process.stdin.write(b"Ada\n")  # type: ignore[union-attr]
    process.stdin.close()  # type: ignore[union-attr]
    process.wait(timeout=5)
    assert printed("Ada")(run)[0]
    assert not printed("Grace")(run)[0]
