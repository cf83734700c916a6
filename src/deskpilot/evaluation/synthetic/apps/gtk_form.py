"""The synthetic form in GTK 3 (Debian's python3-gi): `/usr/bin/python3 gtk_form.py spec.json state.json`."""

import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main() -> None:
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    state_path = sys.argv[2]
    state = {"pressed": []}

    def save(*_) -> None:
        with open(state_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(state_path + ".tmp", state_path)

    window = Gtk.Window(title=spec["title"])
    window.set_wmclass("gtkform", "Gtkform")
    window.move(60, 40)
    window.set_default_size(900 if spec.get("side_list") else 640, 90 + 48 * (len(spec["controls"]) + 2))
    window.connect("destroy", Gtk.main_quit)
    grid = Gtk.Grid(column_spacing=12, row_spacing=8, margin=12)
    for row, control in enumerate(spec["controls"]):
        label, kind = control["label"], control["kind"]
        state[label] = control["initial"]

        def setter(value, name=label) -> None:
            state[name] = value
            save()
        if kind == "checkbox":
            box = Gtk.CheckButton(label=label)
            box.set_active(control["initial"])
            box.connect("toggled", lambda widget, s=setter: s(widget.get_active()))
            grid.attach(box, 1, row, 1, 1)
            continue
        caption = Gtk.Label(label=label, xalign=0)
        grid.attach(caption, 0, row, 1, 1)
        if kind == "field":
            entry = Gtk.Entry(text=control["initial"], width_chars=30)
            entry.connect("changed", lambda widget, s=setter: s(widget.get_text()))
            grid.attach(entry, 1, row, 1, 1)
        elif kind == "dropdown":
            combo = Gtk.ComboBoxText()
            for option in control["options"]:
                combo.append_text(option)
            combo.set_active(control["options"].index(control["initial"]))
            combo.connect("changed", lambda widget, s=setter: s(widget.get_active_text()))
            grid.attach(combo, 1, row, 1, 1)
        else:
            line = Gtk.Box(spacing=8)
            first = None
            for option in control["options"]:
                radio = Gtk.RadioButton.new_with_label_from_widget(first, option)
                first = first or radio
                radio.set_active(option == control["initial"])
                radio.connect("toggled", lambda widget, o=option, s=setter: widget.get_active() and s(o))
                line.pack_start(radio, False, False, 0)
            grid.attach(line, 1, row, 1, 1)
    status = Gtk.Label(label="Ready", xalign=0)
    buttons = Gtk.Box(spacing=8)
    for name in spec["buttons"]:
        button = Gtk.Button(label=name)

        def pressed(_widget, n=name) -> None:
            state["pressed"].append(n)
            status.set_text(f"{n} done")
            save()
        button.connect("clicked", pressed)
        buttons.pack_start(button, False, False, 0)
    grid.attach(buttons, 0, len(spec["controls"]), 2, 1)
    grid.attach(status, 0, len(spec["controls"]) + 1, 2, 1)
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    if spec.get("menu"):
        bar = Gtk.MenuBar()
        for name in spec["menu"]:
            item = Gtk.MenuItem(label=name)
            menu = Gtk.Menu()
            menu.append(Gtk.MenuItem(label="About"))
            item.set_submenu(menu)
            bar.append(item)
        outer.pack_start(bar, False, False, 0)
    body = Gtk.Box(spacing=12)
    if spec.get("grouped"):
        frame = Gtk.Frame(label=spec["title"])
        frame.add(grid)
        body.pack_start(frame, True, True, 6)
    else:
        body.pack_start(grid, True, True, 0)
    if spec.get("side_list"):
        items = Gtk.ListBox()
        for name in spec["side_list"]:
            items.add(Gtk.Label(label=name, xalign=0))
        body.pack_start(items, False, False, 12)
    outer.pack_start(body, True, True, 0)
    window.add(outer)
    save()
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
