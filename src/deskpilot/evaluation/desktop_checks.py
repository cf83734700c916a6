"""Checkers of the desktop-apps suite: each reads a task's outcome from what the application itself produced (a saved
file, the file system, the clipboard, what a dialog printed or its exit code), never from deskpilot's own beliefs.
A checker returns (passed, what it found)."""

from __future__ import annotations

import gzip
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from .desktop_session import DesktopSession


@dataclass
class TaskRun:
    """What a checker may look at: the task's home folder, the desktop, and the applications it started."""

    home: Path
    session: DesktopSession
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _printed: str | None = None

    def printed(self) -> str | None:
        """What the task's first application printed, once it has exited (None while it is still open)."""
        process = self.processes[0]
        if process.poll() is None:
            return None
        if self._printed is None:
            self._printed = (process.stdout.read() if process.stdout else b"").decode(errors="replace")
        return self._printed


Check = Callable[[TaskRun], tuple[bool, str]]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def file_text(path: str, expected: str) -> Check:
    """The file (relative to home) holds `expected`, compared with runs of white space as one space."""
    def check(run: TaskRun) -> tuple[bool, str]:
        target = run.home / path
        if not target.is_file():
            return False, f"no file {path}"
        found = target.read_text(errors="replace")
        return _normal(found) == _normal(expected), f"{path} holds {found[:80]!r}"
    return check


def file_has_line(path: str, line: str) -> Check:
    """The file (relative to home) has this line among its lines (a command's output, say)."""
    def check(run: TaskRun) -> tuple[bool, str]:
        target = run.home / path
        if not target.is_file():
            return False, f"no file {path}"
        lines = target.read_text(errors="replace").splitlines()
        return line in lines, f"{path} has {len(lines)} lines{'' if line in lines else f', none of them {line!r}'}"
    return check


def saved_somewhere(name: str, expected: str) -> Check:
    """A file called `name` anywhere under home (wherever the save dialog put it) holds `expected`."""
    def check(run: TaskRun) -> tuple[bool, str]:
        found = [p for p in run.home.rglob(name) if p.is_file() and ".cache" not in p.parts]
        if not found:
            return False, f"no file named {name}"
        text = found[0].read_text(errors="replace")
        return _normal(text) == _normal(expected), f"{found[0].relative_to(run.home)} holds {text[:80]!r}"
    return check


def is_folder(path: str) -> Check:
    return _is(path, Path.is_dir, "a folder")


def is_file(path: str) -> Check:
    return _is(path, Path.is_file, "a file")


def _is(path: str, test: Callable[[Path], bool], kind: str) -> Check:
    def check(run: TaskRun) -> tuple[bool, str]:
        found = test(run.home / path)
        return found, f"{path} {'is' if found else 'is not'} {kind}"
    return check


def is_gone(path: str) -> Check:
    def check(run: TaskRun) -> tuple[bool, str]:
        there = (run.home / path).exists()
        return not there, f"{path} {'is still there' if there else 'is gone'}"
    return check


def all_of(*checks: Check) -> Check:
    def check(run: TaskRun) -> tuple[bool, str]:
        results = [c(run) for c in checks]
        return all(ok for ok, _ in results), "; ".join(detail for _, detail in results)
    return check


def clipboard_is(expected: str) -> Check:
    def check(run: TaskRun) -> tuple[bool, str]:
        found = run.session.clipboard()
        return _normal(found) == _normal(expected), f"the clipboard holds {found[:80]!r}"
    return check


def clipboard_files(*paths: str) -> Check:
    """A file manager copied exactly these files (relative to home): it offers them as a list of file URIs."""
    def check(run: TaskRun) -> tuple[bool, str]:
        held = run.session.clipboard("text/uri-list").replace("\x00", "")  # PCManFM ends the list with a NUL
        listed = [line.strip() for line in held.splitlines() if line.strip() and not line.startswith("#")]
        found = {Path(unquote(urlparse(uri).path)) for uri in listed if uri.startswith("file://")}
        return found == {run.home / path for path in paths}, f"the clipboard holds files {sorted(map(str, found))}"
    return check


def printed(expected: str | Callable[[Path], str]) -> Check:
    """The dialog closed with OK and printed `expected` (a function of home for paths)."""
    def check(run: TaskRun) -> tuple[bool, str]:
        output = run.printed()
        if output is None:
            return False, "the dialog is still open"
        wanted = expected(run.home) if callable(expected) else expected
        code = run.processes[0].returncode
        return code == 0 and output.strip() == wanted, f"exit code {code}, printed {output.strip()[:80]!r}"
    return check


def exit_code(expected: int) -> Check:
    """The dialog closed with this exit code (0 = OK / Yes, 1 = Cancel / No)."""
    def check(run: TaskRun) -> tuple[bool, str]:
        if run.printed() is None:
            return False, "the dialog is still open"
        code = run.processes[0].returncode
        return code == expected, f"exit code {code}"
    return check


def spreadsheet_cells(path: str, expected: dict[str, str]) -> Check:
    """Cells of a saved spreadsheet, read by Gnumeric's own converter (ssconvert) as computed values."""
    def check(run: TaskRun) -> tuple[bool, str]:
        source = run.home / path
        if not source.is_file():
            return False, f"no file {path}"
        with tempfile.TemporaryDirectory() as scratch:
            csv = Path(scratch) / "sheet.csv"
            subprocess.run(["ssconvert", str(source), str(csv)], capture_output=True, timeout=30,
                           env=run.session.app_env(run.home))
            if not csv.is_file():
                return False, f"{path} could not be read"
            rows = [line.split(",") for line in csv.read_text().splitlines()]
        found = {cell: _cell(rows, cell) for cell in expected}
        return found == expected, f"{path}: " + ", ".join(f"{c}={v!r}" for c, v in found.items())
    return check


def _cell(rows: list[list[str]], cell: str) -> str:
    column, row = ord(cell[0].upper()) - ord("A"), int(cell[1:]) - 1
    if row >= len(rows) or column >= len(rows[row]):
        return ""
    return rows[row][column].strip('"')


def document_text(path: str, expected: str, bold: str | None = None) -> Check:
    """An AbiWord document's text (its .abw XML, possibly gzipped), and optionally a run of it in bold."""
    def check(run: TaskRun) -> tuple[bool, str]:
        source = run.home / path
        if not source.is_file():
            return False, f"no file {path}"
        raw = source.read_bytes()
        try:
            root = ElementTree.fromstring(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        except (ElementTree.ParseError, OSError) as exc:
            return False, f"{path} is not an AbiWord document ({exc})"
        body = [el for el in root.iter() if el.tag.endswith("section")]
        text = _normal(" ".join("".join(section.itertext()) for section in body))
        ok = text == _normal(expected)
        if bold is not None:
            runs = ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}c") or el.tag == "c"
                    if "font-weight:bold" in el.get("props", "")]
            ok = ok and any(_normal(r) == bold for r in runs)
            return ok, f"{path} reads {text[:80]!r}, bold runs {runs[:3]!r}"
        return ok, f"{path} reads {text[:80]!r}"
    return check
