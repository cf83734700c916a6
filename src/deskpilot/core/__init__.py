"""deskpilot's shared vocabulary (Action, Observation, Element, Episode) and its machine interface
(Screen, Controller, Safety). Everything else in deskpilot builds on these; this package imports none of them."""

import logging as _logging


def _quiet_xlib() -> None:
    """python-xlib prints its X-authority warnings ("no xauthority details available", on every connection to a
    server without an entry: Xvfb, containers, CI) with print(), onto stdout, where `--json` output goes. They go
    to the log instead, before any part (pynput's listeners included) opens a connection."""
    try:
        from Xlib import xauth
    except ImportError:  # not on Linux
        return
    log = _logging.getLogger("Xlib.xauth")
    setattr(xauth, "print", lambda *args, **_: log.debug(" ".join(str(a) for a in args)))


_quiet_xlib()
