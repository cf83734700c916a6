"""Timing shared by the benchmark scripts: the median wall time of repeated calls, in milliseconds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 0) -> float:
    """Median of `repeats` timed calls of `fn`, after `warmup` untimed ones (first runs that allocate)."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
