"""How well planner/field_values.py reads which value a task gives each field: the synthetic forms' goals said in
the generator's paraphrases (every phrasing family), against the goals themselves. Per theme set: values bound to
the right field, bound wrongly (another value, or a field the goal does not fill), and left unbound (the model and
the other checks decide those).

    python benchmarks/field_values.py [--seeds 2000]
"""

from __future__ import annotations

import argparse
from collections import Counter

from deskpilot.evaluation.synthetic.tasks import goal_in_words
from deskpilot.planner.field_values import field_values


def measure(held_out: bool, seeds: int) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    for seed in range(seeds):
        form, goal, text = goal_in_words(seed, held_out)
        got = field_values(text, form.field_labels, form.other_names)
        asked = {i.label: str(i.value) for i in goal.intents if i.kind in ("fill", "choose")}
        for label, value in asked.items():
            found = got.get(label)
            kind = "unbound" if found is None else "right" if found.lower() == value.lower() else "wrong"
            counts[kind] += 1
            if kind == "wrong":
                wrong.append(f"{text!r}: {label} = {found!r}, not {value!r}")
        for label in set(got) - set(asked):
            counts["wrong"] += 1
            wrong.append(f"{text!r}: {label} = {got[label]!r}, which the goal does not fill")
    return counts, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2000)
    options = parser.parse_args()
    for name, held_out in (("training themes", False), ("held-out themes", True)):
        counts, wrong = measure(held_out, options.seeds)
        total = sum(counts.values())
        print(f"{name:<16} values {total:>5}  right {counts['right'] / total:.3f}  wrong {counts['wrong']:>3}  "
              f"unbound {counts['unbound'] / total:.3f}")
        for line in wrong[:5]:
            print(f"    {line}")


if __name__ == "__main__":
    main()
