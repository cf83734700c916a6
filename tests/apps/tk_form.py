"""A Tk form with a pre-filled entry: in Tk on X11 ctrl+a moves the caret to the line start (Emacs style) instead of
selecting, so typing after it would leave the old value in the field. Writes its state as JSON.

    python tests/apps/tk_form.py --state FILE [--at X,Y] [--value TEXT] [--max-length N] [--caret-glyph] [--read-only]

`--max-length` makes the entry refuse characters past N (as a web field's maxlength does). `--caret-glyph` draws the
text cursor as a "1" after the last character, blinking as Tk's own (600 ms on, 300 ms off): a cursor OCR reads as
a letter, as it read Chromium's after "Metro Tax" as the "i" of "Metro Taxi". `--read-only` makes an entry that
takes the focus and no typing.
"""

from __future__ import annotations

import argparse
import json
import tkinter as tk
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--at", default="200,120")
    parser.add_argument("--value", default="1000")
    parser.add_argument("--max-length", type=int, default=0)
    parser.add_argument("--caret-glyph", action="store_true")
    parser.add_argument("--read-only", action="store_true")
    args = parser.parse_args()
    root = tk.Tk()
    root.title("Invoice")
    root.geometry(f"420x200+{args.at.replace(',', '+')}")
    tk.Label(root, text="Amount", font=("DejaVu Sans", 12)).pack(anchor="w", padx=12, pady=(16, 2))
    amount = tk.StringVar(value=args.value)
    entry = tk.Entry(root, textvariable=amount, font=("DejaVu Sans", 12), width=30)
    if args.read_only:
        entry.configure(state="readonly", readonlybackground="white")
    if args.max_length:
        fits = root.register(lambda proposed: len(proposed) <= args.max_length)
        entry.configure(validate="key", validatecommand=(fits, "%P"))
    entry.pack(anchor="w", padx=12)

    def save(*_: object) -> None:
        root.update_idletasks()
        box = [entry.winfo_rootx(), entry.winfo_rooty(), entry.winfo_rootx() + entry.winfo_width(),
               entry.winfo_rooty() + entry.winfo_height()]
        partial = args.state.with_suffix(".partial")
        partial.write_text(json.dumps({"fields": {"Amount": amount.get()}, "boxes": {"Amount": box}}))
        partial.replace(args.state)

    if args.caret_glyph:
        entry.configure(insertwidth=0)
        glyph = tk.Label(root, text="1", font=("DejaVu Sans", 12), bg=entry["background"], bd=0, padx=0, pady=0)

        def blink(on: bool = True) -> None:
            text = amount.get()
            if on and text and root.focus_get() is entry:
                x, y, width, _ = entry.bbox(len(text) - 1)
                glyph.place(x=entry.winfo_x() + x + width + 1, y=entry.winfo_y() + y)
            else:
                glyph.place_forget()
            root.after(600 if on else 300, blink, not on)

        blink()

    amount.trace_add("write", save)
    root.after(300, save)
    root.mainloop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
