"""The accessibility tree (AT-SPI on Linux) as a source of elements, read over D-Bus with jeepney: no GObject
bindings, nothing from apt on the Python side. Used when the platform offers it, never required: with no
accessibility bus on the display, or an application that does not answer in time, a read simply returns fewer
nodes (none at worst) and grounding goes on from pixels.

The tree is walked a level at a time with all of a level's calls in flight together (a level of 60 nodes costs
about one round trip, not 300), hidden branches (closed menus, other tabs) are pruned on the `showing` state, and
a whole read has a deadline and a node budget, so a hung or enormous application cannot stall the agent. Toolkits
report boxes in their own logical pixels (GDK_SCALE=2 halves them); each application's factor is measured against
its X windows, so the nodes come out in screen pixels like every other element."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection
from jeepney.low_level import HeaderFields, Message

from deskpilot.core.geometry import Box
from deskpilot.core.observation import ElementRole

READ_TIMEOUT = 1.5  # seconds a whole read may take; what is read by then is used
MAX_NODES = 2500  # nodes read at most (a spreadsheet exposes every cell)
MAX_CHILDREN = 400  # children of one node read at most (a long list's rows past these are off screen anyway)
MAX_DEPTH = 40
RECONNECT_EVERY = 5.0  # seconds between looks for an accessibility bus when there was none
SCALES = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)  # toolkit scale factors a window's size is rounded to

ROOT = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
ACCESSIBLE, COMPONENT, PROPERTIES = "org.a11y.atspi.Accessible", "org.a11y.atspi.Component", \
    "org.freedesktop.DBus.Properties"
STATE_ACTIVE, STATE_CHECKED, STATE_ENABLED, STATE_FOCUSED, STATE_SENSITIVE, STATE_SHOWING = 1, 4, 8, 12, 24, 25
STATE_EXPANDED, STATE_PRESSED, STATE_SELECTED, STATE_IS_DEFAULT = 9, 20, 23, 39

# AtspiRole numbers (atspi-constants.h) -> the vocabulary's roles; roles not listed are containers or decoration.
ROLES: dict[int, ElementRole] = {
    43: "button", 62: "button", 129: "button",  # push button, toggle button, push button menu
    7: "checkbox", 44: "radio",
    8: "menu_item", 45: "menu_item", 33: "menu_item", 35: "menu_item",  # check/radio menu item, menu, menu item
    11: "dropdown",  # combo box
    61: "input", 40: "input", 79: "input", 52: "input", 77: "input",  # text, password, entry, spin button, edit bar
    37: "tab", 32: "list_item", 91: "list_item", 56: "list_item",  # page tab, list item, tree item, table cell
    51: "slider", 88: "link", 26: "icon", 13: "icon", 27: "icon",  # slider, link, icon, desktop icon, image
    29: "text", 116: "text", 83: "text", 81: "text", 73: "text",  # label, static, heading, caption, paragraph
}
WINDOW_ROLES = {2, 16, 19, 23, 69}  # alert, dialog, file chooser, frame, window
POPUP_ROLE = 69
IMAGE_ROLE = 27  # an image is an element only when it has a name (an icon that says what it does)


@dataclass(frozen=True)
class AccessibleNode:
    """One element of an application's accessibility tree, `box` in screen pixels."""

    box: Box
    role: ElementRole
    name: str
    window: int  # which top-level window (index into the read's windows) it belongs to
    checked: bool | None = None  # for check boxes, radio buttons and toggles
    focused: bool = False
    enabled: bool = True
    default: bool = False  # the window's default button


@dataclass(frozen=True)
class AccessibleWindow:
    """A top-level window (frame, dialog) of an application; `active` when it has the keyboard focus."""

    box: Box
    name: str
    active: bool
    pid: int | None
    popup: bool = False  # a bare window (a combo box's list, a menu) rather than a frame or dialog


@dataclass
class AccessibleScreen:
    """What one read of the tree found."""

    windows: list[AccessibleWindow]
    nodes: list[AccessibleNode]
    complete: bool = True  # False when the deadline or the node budget cut the read short
    read_ms: float = 0.0


@dataclass
class _Pending:
    """A node whose properties are being read."""

    bus: str
    path: str
    window: int  # -1 above the windows (an application)
    pid: int | None
    scale: float = 1.0


class AccessibilityTree:
    """Reads the accessibility tree of the X display the agent works on."""

    def __init__(self, display: str | None = None, timeout: float = READ_TIMEOUT):
        self.display = display
        self.timeout = timeout
        self._connection: DBusConnection | None = None
        self._tried_at = -RECONNECT_EVERY
        self._scales: dict[int, float] = {}

    def read(self) -> AccessibleScreen:
        """Every showing element of every application (but this process), with its window; empty when there is no
        accessibility bus."""
        started = time.perf_counter()
        connection = self._connect()
        if connection is None:
            return AccessibleScreen([], [], complete=False)
        try:
            screen = self._walk(connection, time.monotonic() + self.timeout)
        except (OSError, ConnectionError, TimeoutError, ValueError):  # the bus went away: look for it again later
            self.close()
            return AccessibleScreen([], [], complete=False)
        screen.read_ms = (time.perf_counter() - started) * 1000
        return screen

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._scales.clear()

    def _connect(self) -> DBusConnection | None:
        if self._connection is not None:
            return self._connection
        if time.monotonic() - self._tried_at < RECONNECT_EVERY:
            return None
        self._tried_at = time.monotonic()
        address = bus_address(self.display)
        if address is None:
            return None
        try:
            self._connection = open_dbus_connection(address, auth_timeout=0.5)
        except (OSError, ConnectionError, TimeoutError, ValueError):
            return None
        return self._connection

    def _walk(self, connection: DBusConnection, deadline: float) -> AccessibleScreen:
        windows: list[AccessibleWindow] = []
        nodes: list[AccessibleNode] = []
        root = _calls(connection, [_method(*ROOT, ACCESSIBLE, "GetChildren")], deadline)[0]
        apps = [(bus, path) for bus, path in (root[0] if root else [])][:MAX_CHILDREN]
        pids = _calls(connection, [new_method_call(_BUS_DAEMON, "GetConnectionUnixProcessID", "s", (bus,))
                                   for bus, _ in apps], deadline)
        frontier = [_Pending(bus, path, -1, pid[0] if pid else None) for (bus, path), pid in zip(apps, pids)
                    if not (pid and pid[0] == os.getpid())]  # the agent's own window is never a target
        complete, depth, read = True, 0, 0
        while frontier:
            if time.monotonic() > deadline or read + len(frontier) > MAX_NODES or depth > MAX_DEPTH:
                complete = False
                break
            replies = _calls(connection, [message for item in frontier for message in _node_calls(item)], deadline)
            read += len(frontier)
            next_frontier: list[_Pending] = []
            for i, item in enumerate(frontier):
                role_r, name_r, state_r, extents_r, children_r = replies[5 * i:5 * i + 5]
                if role_r is None or state_r is None:
                    continue
                role, states = int(role_r[0]), _bits(state_r[0])
                if item.window >= 0 and not states >> STATE_SHOWING & 1:
                    continue  # a closed menu, another tab: not on the screen, nor anything inside it
                name = " ".join(str(name_r[0][1]).split()) if name_r else ""
                top_level = item.window < 0 and role in WINDOW_ROLES and bool(extents_r)
                if top_level and extents_r:
                    item.scale = self._scale(item.pid, extents_r[0])
                box = _box(extents_r[0], item.scale) if extents_r else None
                window = item.window
                if top_level and extents_r:
                    window = len(windows)
                    windows.append(AccessibleWindow(box or Box(0, 0, 0, 0), name, bool(states >> STATE_ACTIVE & 1),
                                                    item.pid, role == POPUP_ROLE))
                elif window >= 0 and box is not None:
                    node = _node(role, name, box, window, states)
                    if node is not None:
                        nodes.append(node)
                children = children_r[0][:MAX_CHILDREN] if children_r else []
                next_frontier += [_Pending(bus, path, window, item.pid, item.scale) for bus, path in children]
            frontier = next_frontier
            depth += 1
        return AccessibleScreen(windows, nodes, complete)

    def _scale(self, pid: int | None, extents: tuple[int, int, int, int]) -> float:
        """The factor from an application's logical pixels to the screen's, from the width of its X window."""
        if pid is None:
            return 1.0
        if pid not in self._scales:
            widths = x_window_widths(self.display, pid)
            logical = extents[2]
            ratios = [width / logical for width in widths if logical > 0]
            self._scales[pid] = _nearest_scale(ratios)
        return self._scales[pid]


def _nearest_scale(ratios: list[float]) -> float:
    """The toolkit scale nearest to one of the window ratios (a GTK frame's box includes the title bar, so a ratio is
    rarely exact); 1 when no window matched."""
    best, error = 1.0, 0.06
    for ratio in ratios:
        for scale in SCALES:
            if abs(ratio / scale - 1) < error:
                best, error = scale, abs(ratio / scale - 1)
    return best


def _node(role_number: int, name: str, box: Box, window: int, states: int) -> AccessibleNode | None:
    role = ROLES.get(role_number)
    if role is None or box.width <= 1 or box.height <= 1 or (role_number == IMAGE_ROLE and not name):
        return None
    if role == "text" and not name:
        return None
    checkable = role in ("checkbox", "radio") or role_number in (8, 45, 62)
    checked = bool(states >> STATE_CHECKED & 1 or (role_number == 62 and states >> STATE_PRESSED & 1)) \
        if checkable else None
    enabled = bool(states >> STATE_SENSITIVE & 1 or states >> STATE_ENABLED & 1)
    return AccessibleNode(box, role, name, window, checked, bool(states >> STATE_FOCUSED & 1), enabled,
                          bool(states >> STATE_IS_DEFAULT & 1))


_BUS_DAEMON = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")


def _method(bus: str, path: str, interface: str, name: str, signature: str | None = None,
            body: tuple[Any, ...] = ()) -> Message:
    return new_method_call(DBusAddress(path, bus_name=bus, interface=interface), name, signature, body)


def _node_calls(item: _Pending) -> Iterator[Message]:
    yield _method(item.bus, item.path, ACCESSIBLE, "GetRole")
    yield _method(item.bus, item.path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name"))
    yield _method(item.bus, item.path, ACCESSIBLE, "GetState")
    yield _method(item.bus, item.path, COMPONENT, "GetExtents", "u", (0,))  # 0: screen coordinates
    yield _method(item.bus, item.path, ACCESSIBLE, "GetChildren")


def _calls(connection: DBusConnection, messages: list[Message], deadline: float) -> list[tuple[Any, ...] | None]:
    """Send every call at once and collect the replies (None for an error or a call not answered by `deadline`)."""
    serials: dict[int, int] = {}
    for index, message in enumerate(messages):
        serial = next(connection.outgoing_serial)
        serials[serial] = index
        connection.send(message, serial=serial)
    replies: list[tuple[Any, ...] | None] = [None] * len(messages)
    while serials:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            reply = connection.receive(timeout=left)
        except TimeoutError:
            break
        waiting = serials.pop(reply.header.fields.get(HeaderFields.reply_serial, -1), None)
        if waiting is not None and reply.header.message_type == MessageType.method_return:
            replies[waiting] = reply.body
    return replies


def _bits(words: list[int]) -> int:
    return sum(int(word) << (32 * i) for i, word in enumerate(words))


def _box(extents: tuple[int, int, int, int], scale: float) -> Box | None:
    x, y, width, height = extents
    if width <= 0 or height <= 0:
        return None
    return Box(round(x * scale), round(y * scale), round((x + width) * scale), round((y + height) * scale))


def bus_address(display: str | None = None) -> str | None:
    """The accessibility bus of an X display: the AT_SPI_BUS property the bus launcher sets on the root window."""
    try:
        from Xlib import X
        from Xlib import display as xlib_display

        connection = xlib_display.Display(display)
    except Exception:  # noqa: BLE001 - no X display (or no Xlib): no accessibility bus either
        return None
    try:
        value = connection.screen().root.get_full_property(connection.intern_atom("AT_SPI_BUS"), X.AnyPropertyType)
        if value is None:
            return None
        raw = value.value
        return (raw.decode() if isinstance(raw, bytes) else str(raw)) or None
    finally:
        connection.close()


def x_window_widths(display: str | None, pid: int) -> list[int]:
    """Widths of the top-level X windows a process owns (by _NET_WM_PID), in screen pixels."""
    try:
        from Xlib import X
        from Xlib import display as xlib_display
        from Xlib.error import XError

        connection = xlib_display.Display(display)
    except Exception:  # noqa: BLE001
        return []
    try:
        root = connection.screen().root
        pid_atom = connection.intern_atom("_NET_WM_PID")
        listed = root.get_full_property(connection.intern_atom("_NET_CLIENT_LIST"), X.AnyPropertyType)
        windows = [connection.create_resource_object("window", wid) for wid in listed.value] if listed else \
            root.query_tree().children
        widths = []
        for window in windows:
            try:
                owner = window.get_full_property(pid_atom, X.AnyPropertyType)
                if owner is not None and owner.value and int(owner.value[0]) == pid:
                    widths.append(int(window.get_geometry().width))
            except XError:
                continue  # a window that closed while being looked at
        return widths
    finally:
        connection.close()

