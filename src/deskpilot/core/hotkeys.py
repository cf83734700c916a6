"""Global hotkeys (pynput): a callback per key combination, heard whichever window has the focus. Where a
desktop cannot offer that (Wayland hears no keys typed into its own windows), `stop_hotkey_limit` says so."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable

from .errors import ScreenError, SettingsError
from .keys import split_combo

LISTENER_START_SECONDS = 5.0


def stop_hotkey_limit() -> str | None:
    """Why a global hotkey would not hear every key on this desktop, or None when it does."""
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        return ("this is a Wayland session: the global stop hotkey hears only keys typed into X11 (XWayland) "
                "windows; stop with Ctrl+C in this terminal, the app's Stop button or a screen corner")
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        return "no X display: there is no global stop hotkey; stop with Ctrl+C or a screen corner"
    return None


def wait_ready(listener: object, timeout: float = LISTENER_START_SECONDS) -> None:
    """Wait until a pynput listener hears input; a listener that dies or never gets ready is a ScreenError,
    never an endless wait."""
    condition = listener._condition  # type: ignore[attr-defined]
    with condition:
        ready = condition.wait_for(lambda: listener._ready or not listener.is_alive(),  # type: ignore[attr-defined]
                                   timeout)
    if not ready or not listener._ready:  # type: ignore[attr-defined]
        listener.stop()  # type: ignore[attr-defined]
        raise ScreenError("the keyboard/mouse listener did not start (is the X RECORD extension available?)")


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
        wait_ready(self._listener)

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
