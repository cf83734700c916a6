"""MkDocs hooks: the CLI reference (reference/cli.md) is generated from the typer app, and the table of action
calls in reference/actions.md from the action registry, at build time, so neither can drift from the code."""

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


ACTION_TABLE = "<!-- the action registry's table -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if ACTION_TABLE not in markdown:
        return markdown
    from deskpilot.core.action_registry import reference_table

    return markdown.replace(ACTION_TABLE, reference_table())
