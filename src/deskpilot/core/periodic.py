"""A small worker that calls one function at a steady interval in a daemon thread of its own, until closed or
until the function says it is done: the recorder's frame grabber and the failsafe corner watch."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Periodic:
    """Calls `tick` every `interval` seconds until `close()`, or until `tick` returns False."""

    def __init__(self, tick: Callable[[], bool | None], interval: float, name: str):
        self.tick = tick
        self.interval = interval
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Periodic:
        self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        self._closed.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)

    def _run(self) -> None:
        while not self._closed.wait(self.interval):
            if self.tick() is False:
                return
