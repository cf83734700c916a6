"""How far to trust a live score: the 95 % Wilson interval of a success rate, and the exact McNemar test of whether
one model beats another on the very same episodes (same tasks, same seeds), which counts only the episodes where the
two disagree. Between two trainings single MiniWoB++ tasks swing by a few episodes in ten, so a round or an arm is
called better only when this test says so."""

from __future__ import annotations

import math
from dataclasses import dataclass

SIGNIFICANT = 0.05  # the p-value below which a paired difference counts


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of `successes` in `total` (0, 0 for no episodes)."""
    if total == 0:
        return 0.0, 0.0
    rate = successes / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Paired:
    """Two models on the same episodes: how many only the new one solved (`won`), only the old one (`lost`), and the
    two-sided exact McNemar p-value of that split."""

    won: int
    lost: int
    episodes: int  # episodes both were scored on

    @property
    def p_value(self) -> float:
        disagreed = self.won + self.lost
        if disagreed == 0:
            return 1.0
        tail = sum(math.comb(disagreed, k) for k in range(min(self.won, self.lost) + 1)) / 2 ** disagreed
        return min(1.0, 2 * tail)

    @property
    def better(self) -> bool:
        """The new model wins significantly more of the shared episodes than it loses."""
        return self.won > self.lost and self.p_value < SIGNIFICANT

    def to_dict(self) -> dict[str, float | int | bool]:
        return {"won": self.won, "lost": self.lost, "episodes": self.episodes, "p": round(self.p_value, 4),
                "better": self.better}


def paired(old: dict[tuple[str, int], bool], new: dict[tuple[str, int], bool]) -> Paired:
    """Compare two models' outcomes per (task, seed) on the episodes both were scored on."""
    shared = old.keys() & new.keys()
    return Paired(sum(new[k] and not old[k] for k in shared), sum(old[k] and not new[k] for k in shared), len(shared))
