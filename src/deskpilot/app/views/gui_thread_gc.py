"""Python's cyclic garbage collected on the window's thread only.

An object in a reference cycle is freed by whichever thread happens to trigger the next collection. For a Qt object
(a finished agent worker, a closed window's widgets) that can be the agent's or the recorder's thread while the
window's thread is delivering an event to that same object: the app then dies in `QApplication::notify` with a
segfault. While a window is open, automatic collection is off and a timer on the window's thread collects at the
thresholds Python itself uses (generation 0 when its count passes its threshold, older generations as theirs do)."""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_MS = 250  # how often the window's thread looks at the allocation counts

_holders = 0  # collectors running: automatic collection comes back when the last one stops


class GuiThreadCollector(QObject):
    """Automatic collection off between `start()` and `stop()` (the window shown, the window closed), this thread's
    timer collecting instead."""

    def __init__(self, parent: QObject, interval_ms: int = CHECK_MS):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)

    @staticmethod
    def collect_due() -> int:
        """Collect the generations whose counts passed their thresholds; the number of objects found unreachable."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return 0
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
        return gc.collect(generation)

    def start(self) -> None:
        global _holders
        if self._timer.isActive():
            return
        _holders += 1
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        global _holders
        if not self._timer.isActive():
            return
        self._timer.stop()
        _holders -= 1
        if _holders == 0:
            gc.enable()
