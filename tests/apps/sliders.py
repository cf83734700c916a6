"""A slider that shows its value beside it, and a spin box, in one of three toolkits, for tests that the agent sets a
number on a control that takes no typing. Writes {"slider": N, "spin": N, "pressed": [...]} as JSON on each change.

    python tests/apps/sliders.py {qt|tk} --state FILE [--at X,Y] [--start N] [--low N] [--high N]
    /usr/bin/python3 tests/apps/sliders.py gtk --state FILE ...
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


class State:
    def __init__(self, path: Path, slider: int, spin: int):
        self.path = path
        self.values: dict[str, object] = {"slider": slider, "spin": spin, "pressed": []}

    def set(self, name: str, value: object) -> None:
        self.values[name] = value
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.values))
        os.replace(partial, self.path)  # GTK runs in Debian's python3, without deskpilot's packages

    def press(self, name: str) -> None:
        self.set("pressed", [*self.values["pressed"], name])  # type: ignore[misc]


def qt(state: State, at: tuple[int, int], low: int, high: int) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import (QApplication, QGridLayout, QLabel, QPushButton, QSlider, QSpinBox, QWidget)

    app = QApplication([])
    window = QWidget()
    window.setWindowTitle("Sound settings")
    grid = QGridLayout(window)
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setRange(low, high)
    slider.setValue(int(state.values["slider"]))  # type: ignore[call-overload]
    slider.setMinimumWidth(240)
    shown = QLabel(str(slider.value()))
    slider.valueChanged.connect(lambda v: (shown.setText(str(v)), state.set("slider", v)))
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(int(state.values["spin"]))  # type: ignore[call-overload]
    spin.valueChanged.connect(lambda v: state.set("spin", v))
    apply = QPushButton("Apply")
    done = QLabel("")
    apply.clicked.connect(lambda: (state.press("Apply"), done.setText("Applied")))
    grid.addWidget(QLabel("Volume"), 0, 0)
    grid.addWidget(slider, 0, 1)
    grid.addWidget(shown, 0, 2)
    grid.addWidget(QLabel("Repeats"), 1, 0)
    grid.addWidget(spin, 1, 1)
    grid.addWidget(apply, 2, 1)
    grid.addWidget(done, 3, 1)
    window.move(*at)
    window.show()
    QTimer.singleShot(300, lambda: state.set("slider", slider.value()))  # drawn by then: the state says ready
    app.exec()


def gtk(state: State, at: tuple[int, int], low: int, high: int) -> None:
    import gi

    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk

    window = Gtk.Window(title="Sound settings")
    grid = Gtk.Grid(column_spacing=12, row_spacing=12, margin=16)
    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, low, high, 1)
    scale.set_value(int(state.values["slider"]))  # type: ignore[call-overload]
    scale.set_digits(0)
    scale.set_value_pos(Gtk.PositionType.RIGHT)
    scale.set_size_request(240, -1)
    scale.connect("value-changed", lambda s: state.set("slider", int(round(s.get_value()))))
    spin = Gtk.SpinButton.new_with_range(low, high, 1)
    spin.set_value(int(state.values["spin"]))  # type: ignore[call-overload]
    spin.connect("value-changed", lambda s: state.set("spin", int(s.get_value())))
    apply = Gtk.Button(label="Apply")
    done = Gtk.Label(label="")
    apply.connect("clicked", lambda _: (state.press("Apply"), done.set_text("Applied")))
    grid.attach(Gtk.Label(label="Volume"), 0, 0, 1, 1)
    grid.attach(scale, 1, 0, 1, 1)
    grid.attach(Gtk.Label(label="Repeats"), 0, 1, 1, 1)
    grid.attach(spin, 1, 1, 1, 1)
    grid.attach(apply, 1, 2, 1, 1)
    grid.attach(done, 1, 3, 1, 1)
    window.add(grid)
    window.move(*at)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    GLib.timeout_add(300, lambda: state.set("slider", int(scale.get_value())))  # drawn by then: ready
    Gtk.main()


def tk(state: State, at: tuple[int, int], low: int, high: int) -> None:
    import tkinter
    from tkinter import ttk

    root = tkinter.Tk()
    root.title("Sound settings")
    root.geometry(f"+{at[0]}+{at[1]}")
    value = tkinter.IntVar(value=int(state.values["slider"]))  # type: ignore[call-overload]
    shown = ttk.Label(root, text=str(value.get()))

    def moved(text: str) -> None:
        number = int(round(float(text)))
        value.set(number)
        shown.configure(text=str(number))
        state.set("slider", number)

    ttk.Label(root, text="Volume").grid(row=0, column=0, padx=12, pady=12)
    ttk.Scale(root, from_=low, to=high, variable=value, length=240, command=moved).grid(row=0, column=1)
    shown.grid(row=0, column=2, padx=12)
    spin = ttk.Spinbox(root, from_=low, to=high, width=8,
                       command=lambda: state.set("spin", int(float(spin.get()))))
    spin.set(str(state.values["spin"]))
    ttk.Label(root, text="Repeats").grid(row=1, column=0, padx=12, pady=12)
    spin.grid(row=1, column=1, sticky="w")
    done = ttk.Label(root, text="")
    ttk.Button(root, text="Apply", command=lambda: (state.press("Apply"), done.configure(text="Applied"))).grid(
        row=2, column=1, pady=12)
    done.grid(row=3, column=1)
    root.after(300, lambda: state.set("slider", value.get()))  # drawn by then: the state says ready
    root.mainloop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("toolkit", choices=("qt", "gtk", "tk"))
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--at", default="200,120")
    parser.add_argument("--start", type=int, default=20)
    parser.add_argument("--low", type=int, default=0)
    parser.add_argument("--high", type=int, default=100)
    args = parser.parse_args()
    x, y = (int(part) for part in args.at.split(","))
    state = State(args.state, args.start, args.start)
    {"qt": qt, "gtk": gtk, "tk": tk}[args.toolkit](state, (x, y), args.low, args.high)


if __name__ == "__main__":
    main()
