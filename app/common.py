"""What the CLI commands share: where they write (results on stdout, progress and errors on stderr, never
wrapped, since scripts parse them), the configured grounder, the confirmation prompt, and writing PNGs."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from deskpilot.core.actions import Action
from deskpilot.core.settings import Settings

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def grounder_for(settings: Settings):  # noqa: ANN202 - returns the configured Grounder
    from deskpilot.grounding import OcrGrounder
    from deskpilot.grounding.ocr import OcrEngine

    return OcrGrounder(OcrEngine(threads=settings.ocr_threads))


def write_png(path: Path, image_rgb) -> None:  # noqa: ANN001
    from deskpilot.core.episode import encode_png, write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, encode_png(image_rgb))


def confirmer(yes: bool):  # noqa: ANN202
    def ask(action: Action, reason: str) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            return False
        from rich.prompt import Confirm

        return Confirm.ask(f"[yellow]{action.redacted().describe()}[/]: {reason}. Go ahead?", default=False)

    return ask
