"""Global hotkeys (pynput): a callback per key combination, heard whichever window has the focus."""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import SettingsError
from .keys import split_combo


class GlobalHotkeys:
    """`{"ctrl+shift+f12": callback, ...}`; use `close()` (or a context manager) to stop listening."""

    def __init__(self, bindings: dict[str, Callable[[], None]]):
        combos = {}
        for hotkey, callback in bindings.items():
            keys = split_combo(hotkey)
            if {"ctrl", "alt"} <= set(keys) and any(re.fullmatch(r"f\d+", k) for k in keys):
                raise SettingsError(f"hotkey {hotkey!r} cannot work: X11 turns ctrl+alt+F-keys into "
                                    "virtual-terminal switches; pick another, e.g. ctrl+shift+f12")
            combos["+".join(k if len(k) == 1 else f"<{k}>" for k in keys)] = callback
        from pynput import keyboard

        self._listener = keyboard.GlobalHotKeys(combos)
        self._listener.daemon = True
        self._listener.start()
        self._listener.wait()

    def close(self) -> None:
        listener = self._listener
        listener.stop()
        stop_pynput_listener(listener)

    def __enter__(self) -> GlobalHotkeys:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stop_pynput_listener(listener: object) -> None:
    """Stop a pynput listener and wait for its thread. pynput's X11 backend sends "disable recording" on the
    connection that is blocked reading the recording, so its thread would only end at the next input event; the
    RECORD extension wants it on another connection, which pynput also holds: send it there so the thread ends."""
    listener.stop()  # type: ignore[attr-defined]
    control = getattr(listener, "_display_stop", None)
    context = getattr(listener, "_context", None)
    if control is not None and context is not None:
        try:
            control.record_disable_context(context)
            control.flush()
        except Exception:  # the display is already gone: the thread has nothing left to wait for
            pass
    listener.join(timeout=2)  # type: ignore[attr-defined]
