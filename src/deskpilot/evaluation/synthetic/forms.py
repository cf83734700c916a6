"""Synthetic forms and goals: a form is a few labelled controls (text fields, drop-downs, check boxes, radio groups)
and buttons drawn from a theme's vocabulary; a goal is a state of that form reachable from its start, found the
OS-Genesis way: change some controls at random, press a button, and describe the result. A form renders the same in
every toolkit (forms_apps/), each writing its state as JSON, so the goal is checked by the application's own state.

Themes come in two sets that share no label: `TRAIN_THEMES` for collection and `HELD_OUT_THEMES` for evaluation on
forms whose words no training sample used."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

ControlKind = Literal["field", "dropdown", "checkbox", "radio"]
IntentKind = Literal["fill", "choose", "check", "uncheck", "pick", "press"]
TOOLKITS = ("qt", "tk", "gtk", "html")


@dataclass(frozen=True)
class Control:
    """A labelled control: a field holds text, a drop-down and a radio group one of their options, a check box
    True or False. `initial` is its value when the form opens."""

    kind: ControlKind
    label: str
    options: tuple[str, ...] = ()
    initial: str | bool = ""
    values: tuple[str, ...] = ()  # what may be typed into a field


@dataclass(frozen=True)
class FormSpec:
    """A form, and what stands around it on a busy window: a menu bar, a group box titled with the form's title,
    a list of unrelated items beside it (what a real app shows that the task does not ask about)."""

    title: str
    controls: tuple[Control, ...]
    buttons: tuple[str, ...]
    menu: tuple[str, ...] = ()
    grouped: bool = False
    side_list: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> FormSpec:
        data = json.loads(text)
        controls = tuple(Control(c["kind"], c["label"], tuple(c.get("options", ())), c.get("initial", ""),
                                 tuple(c.get("values", ()))) for c in data["controls"])
        return cls(data["title"], controls, tuple(data["buttons"]), tuple(data.get("menu", ())),
                   bool(data.get("grouped", False)), tuple(data.get("side_list", ())))

    @property
    def field_labels(self) -> list[str]:
        """The labels of its text fields and drop-downs: what a task may give a value."""
        return [c.label for c in self.controls if c.kind in ("field", "dropdown")]

    @property
    def other_names(self) -> list[str]:
        """Every other name it shows: check boxes' and radio groups' labels, radio options, buttons."""
        return [c.label for c in self.controls if c.kind not in ("field", "dropdown")] + list(self.buttons) + [
            option for c in self.controls if c.kind == "radio" for option in c.options]

    def start_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {c.label: c.initial for c in self.controls}
        state["pressed"] = []
        return state


@dataclass(frozen=True)
class Intent:
    """One thing the goal asks: fill a field with a value, choose a drop-down option, check or uncheck a box, pick
    a radio option, press a button."""

    kind: IntentKind
    label: str
    value: str = ""


@dataclass(frozen=True)
class Goal:
    intents: tuple[Intent, ...]
    expected: dict[str, Any] = field(default_factory=dict)  # label -> value that must hold; "pressed" -> button

    def reached(self, state: dict[str, Any]) -> tuple[bool, str]:
        """Whether `state` (the application's own) holds the goal, and what differs where it does not."""
        wrong = []
        for label, value in self.expected.items():
            if label == "pressed":
                if value not in state.get("pressed", []):
                    wrong.append(f"{value} not pressed")
            elif state.get(label) != value:
                wrong.append(f"{label}={state.get(label)!r}, expected {value!r}")
        return not wrong, "; ".join(wrong) or "as asked"


@dataclass(frozen=True)
class Theme:
    title: str
    fields: dict[str, tuple[str, ...]]  # label -> values one may type
    dropdowns: dict[str, tuple[str, ...]]
    checkboxes: tuple[str, ...]
    radios: dict[str, tuple[str, ...]]
    buttons: tuple[str, ...]


TRAIN_THEMES = (
    Theme("Shipping", {"Name": ("Ada Lovelace", "Grace Hopper", "Alan Kay", "Mary Shaw"),
                       "Street": ("12 Baker Street", "5 Rue Cler", "77 Elm Road"),
                       "City": ("Lisbon", "Oslo", "Dublin", "Quito", "Perth"),
                       "Postcode": ("1000", "90210", "SW1A 1AA", "75007")},
          {"Country": ("Portugal", "Norway", "Ireland", "Ecuador", "Australia")},
          ("Gift wrap", "Signature required", "Leave at door"),
          {"Delivery": ("Standard", "Express", "Pickup")}, ("Place order", "Cancel", "Back")),
    Theme("Account", {"Username": ("ada", "ghopper", "kay42", "mshaw"),
                      "Email": ("ada@example.com", "grace@navy.mil", "me@kay.org"),
                      "Phone": ("555-0100", "+351 21 000", "0412 555 019")},
          {"Language": ("English", "Deutsch", "Español", "Français"),
           "Time zone": ("UTC", "Europe/Lisbon", "Asia/Tokyo")},
          ("Two-factor login", "Email alerts", "Public profile"),
          {"Theme": ("Light", "Dark", "System")}, ("Save", "Reset", "Close")),
    Theme("Print", {"Copies": ("1", "2", "3", "10"), "Pages": ("1-3", "all", "5", "2,4")},
          {"Printer": ("Office laser", "Colour inkjet", "PDF file"), "Paper": ("A4", "Letter", "A3")},
          ("Double-sided", "Collate", "Grayscale"),
          {"Orientation": ("Portrait", "Landscape")}, ("Print", "Cancel", "Preview")),
    Theme("Booking", {"Guests": ("1", "2", "4"), "Arrival": ("2026-12-01", "12/24/2026", "Jan 5"),
                      "Guest name": ("Sam Lee", "Rita Moreno", "Omar Haddad")},
          {"Room type": ("Single", "Double", "Suite"), "Board": ("Room only", "Breakfast", "Half board")},
          ("Late check-in", "Parking", "Airport shuttle"),
          {"Payment": ("Card", "Cash", "Invoice")}, ("Book now", "Cancel", "Check availability")),
    Theme("Search", {"Keywords": ("budget 2026", "red shoes", "meeting notes"), "Author": ("Kim", "Lopez", "Ng")},
          {"Sort by": ("Relevance", "Newest", "Oldest"), "File type": ("Any", "PDF", "Spreadsheet")},
          ("Exact match", "Include archived", "Only mine"),
          {"Scope": ("This folder", "Everywhere")}, ("Search", "Clear", "Advanced")),
    Theme("Preferences", {"Home page": ("example.com", "news.site", "start.local"), "Font size": ("12", "14", "16")},
          {"Startup": ("New tab", "Last session", "Home page"), "Downloads": ("Ask", "Desktop", "Downloads")},
          ("Block pop-ups", "Send usage data", "Spell check"),
          {"Cookies": ("Allow all", "Block third-party", "Block all")}, ("Apply", "OK", "Cancel")),
)

HELD_OUT_THEMES = (
    Theme("Expense claim", {"Merchant": ("Café Roma", "Metro Taxi", "Office Depot"),
                            "Amount": ("12.50", "240", "7.99"), "Receipt number": ("R-1001", "77341")},
          {"Category": ("Travel", "Meals", "Supplies"), "Currency": ("EUR", "USD", "GBP")},
          ("Billable to client", "Has receipt", "Urgent"),
          {"Paid with": ("Company card", "Own money")}, ("Submit claim", "Discard", "Save draft")),
    Theme("Volunteer sign-up", {"Full name": ("Noor Aziz", "Li Wei", "Tomás Díaz"),
                                "Mobile": ("07700 900123", "+44 20 7946"), "Hours per week": ("2", "5", "8")},
          {"Team": ("Kitchen", "Garden", "Reception"), "T-shirt size": ("S", "M", "L", "XL")},
          ("First aid trained", "Has a car", "Weekends only"),
          {"Shift": ("Morning", "Afternoon", "Evening")}, ("Join", "Not now", "Help")),
)


MENUS = ("File", "Edit", "View", "Tools", "Help", "Window")
SIDE_LISTS = (("Report.pdf", "Minutes.txt", "Budget.ods", "Photo-01.jpg", "Draft.odt", "Invoice-7.pdf", "Notes.md",
               "Slides.odp", "Backup.zip", "Plan.txt", "Recipe.txt", "Map.png"),
              ("Alice Brown", "Bao Tran", "Carlos Ruiz", "Dana Weiss", "Emeka Obi", "Fatima Zahra", "Greta Lind",
               "Hiro Sato", "Ines Costa", "Jonas Berg"),
              ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Holiday"),
              ("Inbox (3)", "Sent", "Drafts", "Archive", "Spam", "Trash", "Newsletters", "Receipts"))


def random_form(rng: random.Random, themes: tuple[Theme, ...] = TRAIN_THEMES) -> FormSpec:
    """A form of one theme: 1-3 fields, 0-2 drop-downs, 0-3 check boxes, 0-1 radio group, its buttons; some
    controls start filled or checked (a goal may have to change or clear them)."""
    theme = rng.choice(themes)
    controls: list[Control] = []
    for label in rng.sample(list(theme.fields), rng.randint(1, min(3, len(theme.fields)))):
        values = theme.fields[label]
        controls.append(Control("field", label, initial=rng.choice(values) if rng.random() < 0.2 else "",
                                values=values))
    for label in rng.sample(list(theme.dropdowns), rng.randint(0, len(theme.dropdowns))):
        options = theme.dropdowns[label]
        controls.append(Control("dropdown", label, options, options[0]))
    for label in rng.sample(theme.checkboxes, rng.randint(0, 3)):
        controls.append(Control("checkbox", label, initial=rng.random() < 0.3))
    for label in rng.sample(list(theme.radios), rng.randint(0, 1)):
        options = theme.radios[label]
        controls.append(Control("radio", label, options, options[0]))
    menu = tuple(rng.sample(MENUS, rng.randint(2, 4))) if rng.random() < 0.4 else ()
    items = rng.choice(SIDE_LISTS)
    side = tuple(rng.sample(items, rng.randint(6, len(items)))) if rng.random() < 0.4 else ()
    return FormSpec(theme.title, tuple(controls), theme.buttons, menu, rng.random() < 0.5, side)


def random_goal(form: FormSpec, rng: random.Random) -> Goal:
    """A reachable goal: 1-3 controls changed from their start (a field filled, an option chosen, a box toggled)
    and, half the time, a button pressed at the end."""
    intents: list[Intent] = []
    expected: dict[str, Any] = {}
    changeable = list(form.controls)
    for control in rng.sample(changeable, rng.randint(1, min(3, len(changeable)))):
        if control.kind == "field":
            value = rng.choice([v for v in control.values if v != control.initial])
            intents.append(Intent("fill", control.label, value))
        elif control.kind in ("dropdown", "radio"):
            value = rng.choice([o for o in control.options if o != control.initial])
            intents.append(Intent("choose" if control.kind == "dropdown" else "pick", control.label, value))
        else:
            value = not control.initial
            intents.append(Intent("check" if value else "uncheck", control.label))
        expected[control.label] = value
    if rng.random() < 0.5:
        button = form.buttons[0]
        intents.append(Intent("press", button))
        expected["pressed"] = button
    return Goal(tuple(intents), expected)
