"""Running deskpilot's own commands from the benchmark scripts: the same CLI a user runs, in this interpreter."""

from __future__ import annotations

import os
import subprocess
import sys


def deskpilot(*args: str, env: dict[str, str] | None = None) -> None:
    """`deskpilot ARGS` to its end (its output hidden; a failure raises), with `env` added to this environment."""
    subprocess.run([sys.executable, "-m", "deskpilot.app", *args], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})
