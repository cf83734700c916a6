"""How the agent's own goal check agrees with an environment's verdict (MiniWoB's reward, the desktop suite's
checkers), over a set of episodes: the false successes (the agent said success, the environment says it failed),
the checks that passed on a failed episode, and the false failures (the check failed a won episode)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def check_agreement(episodes: Iterable[tuple[bool, str, bool | None]]) -> dict[str, Any]:
    """(environment's success, the run's outcome, the goal check's verdict or None) per episode -> the counts."""
    rows = list(episodes)
    checked = [(won, passed) for won, _, passed in rows if passed is not None]
    false_successes = sum(1 for won, outcome, _ in rows if outcome == "success" and not won)
    false_failures = sum(1 for won, passed in checked if won and not passed)
    return {"episodes": len(rows), "checked": len(checked), "false_successes": false_successes,
            "check_passed_on_failure": sum(1 for won, passed in checked if passed and not won),
            "false_failures": false_failures,
            "false_failure_rate": false_failures / max(1, sum(1 for won, _ in checked if won))}
