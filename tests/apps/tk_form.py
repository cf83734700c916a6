"""A Tk form with a pre-filled entry: in Tk on X11 ctrl+a moves the caret to the line start (Emacs style) instead of
selecting, so typing after it would leave the old value in the field. Writes its state as JSON.

    python tests/apps/tk_form.py --state FILE [--at X,Y]
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
    args = parser.parse_args()
    root = tk.Tk()
    root.title("Invoice")
    root.geometry(f"420x200+{args.at.replace(',', '+')}")
    tk.Label(root, text="Amount", font=("DejaVu Sans", 12)).pack(anchor="w", padx=12, pady=(16, 2))
    amount = tk.StringVar(value="1000")
    entry = tk.Entry(root, textvariable=amount, font=("DejaVu Sans", 12), width=30)
    entry.pack(anchor="w", padx=12)

    def save(*_: object) -> None:
        root.update_idletasks()
        box = [entry.winfo_rootx(), entry.winfo_rooty(), entry.winfo_rootx() + entry.winfo_width(),
               entry.winfo_rooty() + entry.winfo_height()]
        partial = args.state.with_suffix(".partial")
        partial.write_text(json.dumps({"fields": {"Amount": amount.get()}, "boxes": {"Amount": box}}))
        partial.replace(args.state)

    amount.trace_add("write", save)
    root.after(300, save)
    root.mainloop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
