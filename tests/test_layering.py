"""Imports point one way (ARCHITECTURE.md): core <- grounding, planner, recorder <- labelling, training <- evaluation
<- app.
Planner and recorder may use grounding; resources (package data, the demo app) use only core; nothing below the app
imports it — benchmarks included, and tests only where a test itself drives the app."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "deskpilot"
ALLOWED = {
    "core": {"core"},
    "resources": {"resources", "core"},
    "grounding": {"grounding", "core", "resources"},
    "planner": {"planner", "grounding", "core", "resources"},
    "recorder": {"recorder", "grounding", "core", "resources"},
    "labelling": {"labelling", "planner", "recorder", "grounding", "core", "resources"},
    "training": {"training", "planner", "recorder", "grounding", "core", "resources"},
    "evaluation": {"evaluation", "labelling", "training", "planner", "recorder", "grounding", "core", "resources"},
    "app": {"app", "evaluation", "labelling", "training", "planner", "recorder", "grounding", "core", "resources"},
}
BELOW_APP = set(ALLOWED) - {"app"}


def imported_parts(path: Path, top_level_only: bool) -> set[tuple[int, str]]:
    """(line, part) for every deskpilot part the file imports by name (relative imports stay in their package).
    `top_level_only` leaves out imports inside functions and classes (a test that drives the app imports it there)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tops = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    nodes = [n for top in tops for n in ast.walk(top)] if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "deskpilot" and len(parts) > 1:
                found.add((node.lineno, parts[1]))
    return found


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_point_the_right_way(package):
    wrong = [f"{path.relative_to(ROOT)}:{line} imports deskpilot.{part}"
             for path in python_files(PACKAGE / package)
             for line, part in imported_parts(path, top_level_only=False)
             if part in ALLOWED and part not in ALLOWED[package]]
    assert not wrong, "\n".join(wrong)


def test_benchmarks_and_test_helpers_never_import_the_app():
    tests = [p for p in python_files(ROOT / "tests") if not p.name.startswith("test_app")]
    files = python_files(ROOT / "benchmarks") + tests
    wrong = [f"{path.relative_to(ROOT)}:{line} imports deskpilot.app"
             for path in files for line, part in imported_parts(path, top_level_only=True) if part == "app"]
    assert not wrong, "\n".join(wrong)


def test_the_checker_sees_a_wrong_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from deskpilot.app.common import out\n")
    assert (2, "app") in imported_parts(bad, top_level_only=False)
    assert imported_parts(bad, top_level_only=True) == set()
