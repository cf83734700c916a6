"""The synthetic form in Tk: `python tk_form.py spec.json state.json`."""

import json
import os
import sys
import tkinter as tk
from tkinter import ttk


def main() -> None:
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    state_path = sys.argv[2]
    state = {"pressed": []}
    root = tk.Tk(className="tkform")
    scale = float(os.environ.get("DESKPILOT_APP_SCALE", "1"))  # the desktop's scale factor (the suite's session)
    root.tk.call("tk", "scaling", root.tk.call("tk", "scaling") * scale)
    root.title(spec["title"])
    width = 900 if spec.get("side_list") else 640
    root.geometry(f"{width}x{100 + 44 * (len(spec['controls']) + 2)}+60+40")
    if spec.get("menu"):
        bar = tk.Menu(root)
        for name in spec["menu"]:
            item = tk.Menu(bar, tearoff=0)
            item.add_command(label="About")
            bar.add_cascade(label=name, menu=item)
        root.config(menu=bar)
    if spec.get("side_list"):
        items = tk.Listbox(root, height=12)
        for name in spec["side_list"]:
            items.insert("end", name)
        items.pack(side="right", fill="y", padx=12, pady=12)
    frame = ttk.LabelFrame(root, text=spec["title"], padding=12) if spec.get("grouped") else \
        ttk.Frame(root, padding=12)
    frame.pack(fill="both", expand=True, padx=6, pady=6)
    keep = []

    def save(*_) -> None:
        with open(state_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(state_path + ".tmp", state_path)

    for row, control in enumerate(spec["controls"]):
        label, kind = control["label"], control["kind"]
        state[label] = control["initial"]
        if kind == "checkbox":
            variable = tk.BooleanVar(value=control["initial"])
            ttk.Checkbutton(frame, text=label, variable=variable).grid(row=row, column=1, sticky="w", pady=4)
        else:
            ttk.Label(frame, text=label).grid(row=row, column=0, sticky="w", padx=(0, 12), pady=4)
            variable = tk.StringVar(value=control["initial"])
            if kind == "field":
                ttk.Entry(frame, textvariable=variable, width=32).grid(row=row, column=1, sticky="w", pady=4)
            elif kind == "dropdown":
                ttk.Combobox(frame, textvariable=variable, values=control["options"], state="readonly",
                             width=30).grid(row=row, column=1, sticky="w", pady=4)
            else:
                group = ttk.Frame(frame)
                group.grid(row=row, column=1, sticky="w", pady=4)
                for option in control["options"]:
                    ttk.Radiobutton(group, text=option, value=option, variable=variable).pack(side="left", padx=4)

        def changed(*_, name=label, source=variable) -> None:
            state[name] = source.get()
            save()
        variable.trace_add("write", changed)
        keep.append(variable)
    status = ttk.Label(frame, text="Ready")
    buttons = ttk.Frame(frame)
    buttons.grid(row=len(spec["controls"]), column=0, columnspan=2, sticky="w", pady=8)
    for name in spec["buttons"]:
        def pressed(n=name) -> None:
            state["pressed"].append(n)
            status.configure(text=f"{n} done")
            save()
        ttk.Button(buttons, text=name, command=pressed).pack(side="left", padx=4)
    status.grid(row=len(spec["controls"]) + 1, column=0, columnspan=2, sticky="w")
    save()
    root.mainloop()


if __name__ == "__main__":
    main()
