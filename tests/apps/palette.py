"""A palette of colour swatches with no text on them (as office apps show for a highlight or font colour), in Qt or
Tk, for tests that the agent clicks a swatch named by its colour; the swatch chosen is ringed and named under the
palette, as palettes show it.
Writes {"clicked": [...]} as JSON on each click.

    python tests/apps/palette.py {qt|tk} --state FILE [--at X,Y]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

SWATCHES = {"red": "#e01b24", "orange": "#ff7800", "teal": "#008080", "navy": "#000080", "olive": "#808000",
            "purple": "#800080"}


class State:
    def __init__(self, path: Path):
        self.path = path
        self.clicked: list[str] = []

    def click(self, name: str | None) -> None:
        if name is not None:
            self.clicked.append(name)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps({"clicked": self.clicked}))
        os.replace(partial, self.path)


def qt(state: State, at: tuple[int, int]) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QPushButton, QWidget

    app = QApplication([])
    window = QWidget()
    window.setWindowTitle("Highlight colour")
    grid = QGridLayout(window)
    grid.addWidget(QLabel("Pick a highlight colour"), 0, 0, 1, len(SWATCHES))
    chosen = QLabel("Chosen: none")
    for column, (name, colour) in enumerate(SWATCHES.items()):
        swatch = QPushButton("")
        swatch.setFixedSize(40, 40)
        swatch.setStyleSheet(f"background-color: {colour}; border: 1px solid #404040;")
        swatch.clicked.connect(lambda _=False, n=name, s=swatch, c=colour: (
            s.setStyleSheet(f"background-color: {c}; border: 4px solid #000000;"),
            chosen.setText(f"Chosen: {n.title()}"), state.click(n)))
        grid.addWidget(swatch, 1, column)
    grid.addWidget(chosen, 2, 0, 1, len(SWATCHES))
    window.move(*at)
    window.show()
    QTimer.singleShot(300, lambda: state.click(None))  # drawn by then: the state says ready
    app.exec()


def tk(state: State, at: tuple[int, int]) -> None:
    import tkinter

    root = tkinter.Tk()
    root.title("Highlight colour")
    root.geometry(f"+{at[0]}+{at[1]}")
    tkinter.Label(root, text="Pick a highlight colour").grid(row=0, column=0, columnspan=len(SWATCHES), pady=8)
    chosen = tkinter.Label(root, text="Chosen: none")
    for column, (name, colour) in enumerate(SWATCHES.items()):
        swatch = tkinter.Frame(root, width=40, height=40, bg=colour, highlightthickness=1,
                               highlightbackground="#404040")
        swatch.grid(row=1, column=column, padx=6, pady=6)
        swatch.bind("<Button-1>", lambda _event, n=name, s=swatch: (
            s.configure(highlightthickness=4, highlightbackground="#000000"),
            chosen.configure(text=f"Chosen: {n.title()}"), state.click(n)))
    chosen.grid(row=2, column=0, columnspan=len(SWATCHES), pady=8)
    root.after(300, lambda: state.click(None))
    root.mainloop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("toolkit", choices=("qt", "tk"))
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--at", default="200,120")
    args = parser.parse_args()
    x, y = (int(part) for part in args.at.split(","))
    {"qt": qt, "tk": tk}[args.toolkit](State(args.state), (x, y))


if __name__ == "__main__":
    main()
