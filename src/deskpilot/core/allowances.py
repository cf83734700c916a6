"""Standing permissions a person gave when asked ("always allow this in this app"): a click on a control, named by
the text under its point, in an application, named by its window class (which the application's output cannot
change). Only clicks can be allowed for good — typing and keys always ask — and an allowance is found again only
for the same kind of click on the same text in the same application. Kept in allowances.json beside the settings
file; listed and revoked in the app's Settings view."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from .actions import ActionKind
from .safety import Confirmation
from .settings import default_config_file

log = logging.getLogger(__name__)
ALLOWANCES_FILE = "allowances.json"
ALLOWABLE = (ActionKind.CLICK, ActionKind.DOUBLE_CLICK)


@dataclass(frozen=True)
class Allowance:
    app: str  # the window class of the application
    action: str  # click | double_click
    under: str  # the text under the point

    def describe(self) -> str:
        return f"{self.action.replace('_', '-')} on {self.under!r} in {self.app}"


def allowance_for(request: Confirmation) -> Allowance | None:
    """The allowance that would cover `request`, or None where it cannot be allowed for good (typing or keys, or
    no application or text to name it by)."""
    if request.action.kind not in ALLOWABLE or not request.app or not request.under.strip():
        return None
    return Allowance(request.app, request.action.kind.value, request.under.strip())


class Allowances:
    """The allowances file: read on every question (another window may have revoked one), written at once."""

    def __init__(self, path: Path | None = None):
        self.path = path or default_config_file().parent / ALLOWANCES_FILE

    def all(self) -> list[Allowance]:
        """Every allowance; an unreadable or malformed file counts as none (the agent asks again, never less)."""
        try:
            data = json.loads(self.path.read_text())
            return [Allowance(str(a["app"]), str(a["action"]), str(a["under"])) for a in data["allowances"]]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring %s (%s): every risky action asks again", self.path, exc)
            return []

    def allows(self, request: Confirmation) -> bool:
        wanted = allowance_for(request)
        return wanted is not None and wanted in self.all()

    def add(self, allowance: Allowance) -> None:
        self._write([a for a in self.all() if a != allowance] + [allowance])

    def revoke(self, allowance: Allowance) -> None:
        self._write([a for a in self.all() if a != allowance])

    def _write(self, allowances: list[Allowance]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"allowances": [asdict(a) for a in allowances]}, indent=2))
