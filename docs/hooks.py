"""MkDocs hook: the CLI reference (reference/cli.md) is generated from the typer app at build time, so it cannot
drift from the code."""

from __future__ import annotations

from typing import Any

import click
import typer
from mkdocs.structure.files import File, Files
from typer.cli import get_docs_for_click


def on_files(files: Files, config: Any) -> Files:
    from deskpilot.app.cli import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=click.Context(command, info_name="deskpilot"), name="deskpilot",
                              title="Command-line reference")
    intro = ("Generated from `deskpilot.app.cli` when the docs are built; `deskpilot COMMAND --help` prints the "
             "same.\n\n")
    text = text.replace("\n", "\n" + intro, 1) if text.startswith("# ") else intro + text
    files.append(File.generated(config, "reference/cli.md", content=text))
    return files
