"""The tasks of the desktop-apps suite: Debian applications deskpilot did not write (Mousepad, FeatherPad, Galculator,
PCManFM, Zenity's GTK dialogs, xterm, Gnumeric, AbiWord), each task with its start state (files made in a fresh
home, the application opened on them), a task text in plain English, and a checker that reads the outcome from the
application's own output (desktop_checks). Tasks run from one step to ten or more, through menus, dialogs, lists,
trees, tool bars, calendars, sliders and keyboard shortcuts."""

from __future__ import annotations

from dataclasses import dataclass, field

from .desktop_checks import (Check, all_of, clipboard_files, clipboard_is, document_text, exit_code, file_has_line,
                             file_text, is_file, is_folder, is_gone, printed, saved_somewhere, spreadsheet_cells)


@dataclass(frozen=True)
class DesktopTask:
    """`launch` is the command line, with "{home}" standing for the task's home folder; `window` is the WM_CLASS
    of the window to wait for; `files` are made (relative to home) before the application starts; `prints` says
    the checker reads what the application prints (a Zenity dialog); `prepare` are command lines run in home after
    the files are made (an application's own converter making its document from them)."""

    name: str
    app: str
    text: str
    launch: tuple[str, ...]
    window: str
    check: Check
    files: dict[str, str] = field(default_factory=dict)
    prepare: tuple[tuple[str, ...], ...] = ()
    prints: bool = False
    skills: tuple[str, ...] = ()
    max_steps: int = 15
    paraphrases: tuple[str, ...] = ()  # the task in other words (synthetic tasks): training repeats its steps so


TODO = {"Documents/todo.txt": "buy milk"}
ARCHIVE = {"Documents/todo.txt": "buy milk", "Documents/Archive/old.txt": "old notes"}
SHEET = {"Documents/budget.csv": "Item,Cost\nRent,900\nFood,250\n"}
FRUITS = ("--list", "--height=320", "--column=Fruit", "Apple", "Banana", "Cherry", "Durian")  # a Zenity list
GNUMERIC_SHEET = (("ssconvert", "Documents/budget.csv", "Documents/budget.gnumeric"),)


def _mousepad(*files: str) -> tuple[str, ...]:
    return ("mousepad", "--disable-server", *files)


def _zenity(*args: str) -> tuple[str, ...]:
    return ("zenity", "--width=420", *args)


TASKS: tuple[DesktopTask, ...] = (
    # Mousepad (GTK 3 text editor)
    DesktopTask("mousepad-save-as", "Mousepad", 'Type "Meeting at 10" and save the file as "meeting.txt" in Documents',
                _mousepad(), "Mousepad", file_text("Documents/meeting.txt", "Meeting at 10"),
                skills=("typing", "menu", "file dialog")),
    DesktopTask("mousepad-file-menu", "Mousepad", 'Write "shopping list" then open the File menu and choose Save As, '
                'type "list.txt" into the Name field and press Enter', _mousepad(), "Mousepad",
                saved_somewhere("list.txt", "shopping list"), skills=("menu", "file dialog")),
    DesktopTask("mousepad-append", "Mousepad", 'Press ctrl+End, type " and eggs" and press ctrl+s',
                _mousepad("{home}/Documents/todo.txt"), "Mousepad", file_text("Documents/todo.txt",
                                                                              "buy milk and eggs"),
                files=TODO, skills=("shortcut", "typing")),
    DesktopTask("mousepad-replace-all", "Mousepad", 'Select all the text with ctrl+a, type "done" and save it with '
                'ctrl+s', _mousepad("{home}/Documents/todo.txt"), "Mousepad",
                file_text("Documents/todo.txt", "done"), files=TODO, skills=("shortcut", "typing")),
    DesktopTask("mousepad-find-replace", "Mousepad", 'Open the Search menu and choose Find and Replace, type "milk" '
                'into the Search for field, type "bread" into the Replace with field, click Replace, close the '
                'dialog and press ctrl+s', _mousepad("{home}/Documents/todo.txt"), "Mousepad",
                file_text("Documents/todo.txt", "buy bread"), files=TODO, skills=("menu", "dialog", "typing"),
                max_steps=20),
    DesktopTask("mousepad-copy", "Mousepad", "Press ctrl+a then press ctrl+c", _mousepad("{home}/Documents/todo.txt"),
                "Mousepad", clipboard_is("buy milk"), files=TODO, skills=("shortcut",)),
    DesktopTask("mousepad-edit-menu-copy", "Mousepad", "Open the Edit menu and choose Select All, then open the Edit "
                "menu and choose Copy", _mousepad("{home}/Documents/todo.txt"), "Mousepad", clipboard_is("buy milk"),
                files=TODO, skills=("menu",)),
    # FeatherPad (Qt 5 text editor)
    DesktopTask("featherpad-save-as", "FeatherPad", 'Type "Qt notes" and save the file as "qt.txt" in Documents',
                ("featherpad",), "featherpad", file_text("Documents/qt.txt", "Qt notes"),
                skills=("typing", "menu", "file dialog")),
    DesktopTask("featherpad-append", "FeatherPad", 'Press ctrl+End, type "!" then press ctrl+s',
                ("featherpad", "{home}/Documents/todo.txt"), "featherpad", file_text("Documents/todo.txt",
                                                                                     "buy milk!"),
                files=TODO, skills=("shortcut", "typing")),
    DesktopTask("featherpad-edit-menu-copy", "FeatherPad", "Open the Edit menu and choose Select All, then open the "
                "Edit menu and choose Copy", ("featherpad", "{home}/Documents/todo.txt"), "featherpad",
                clipboard_is("buy milk"), files=TODO, skills=("menu",)),
    DesktopTask("featherpad-overwrite", "FeatherPad", 'Press ctrl+a, type "all done" and press ctrl+s',
                ("featherpad", "{home}/Documents/todo.txt"), "featherpad", file_text("Documents/todo.txt", "all done"),
                files=TODO, skills=("shortcut", "typing")),
    # A tool-bar icon has no text on the screen: its name is its tooltip, which the accessibility tree gives
    DesktopTask("featherpad-toolbar-save", "FeatherPad", 'Press ctrl+End, type " today" and click the Save button',
                ("featherpad", "{home}/Documents/todo.txt"), "featherpad",
                file_text("Documents/todo.txt", "buy milk today"), files=TODO, skills=("tool bar", "typing")),
    # Galculator (GTK 3 calculator): the result is read from the clipboard after the task copies it
    DesktopTask("galculator-type-sum", "Galculator", 'Type "78+5=" then press ctrl+c', ("galculator",), "galculator",
                clipboard_is("83"), skills=("typing", "shortcut")),
    DesktopTask("galculator-buttons", "Galculator", "Click 4, 2, +, 8 and =, then press ctrl+c", ("galculator",),
                "galculator", clipboard_is("50"), skills=("buttons",)),
    DesktopTask("galculator-divide-menu-copy", "Galculator", 'Type "100/8=" then open the Edit menu and choose Copy',
                ("galculator",), "galculator", clipboard_is("12.5"), skills=("typing", "menu")),
    DesktopTask("galculator-multiply", "Galculator", 'Type "12*12" and press Enter, then press ctrl+c',
                ("galculator",), "galculator", clipboard_is("144"), skills=("typing", "shortcut")),
    DesktopTask("galculator-clear", "Galculator", 'Type "999", click C, type "7*6=" and press ctrl+c',
                ("galculator",), "galculator", clipboard_is("42"), skills=("typing", "buttons")),
    # PCManFM (GTK file manager): the file system says what happened
    DesktopTask("pcmanfm-new-folder", "PCManFM", 'Open the File menu, choose Create New, choose Folder, type '
                '"Projects" and press Enter', ("pcmanfm", "{home}/Documents"), "pcmanfm",
                is_folder("Documents/Projects"), files=TODO, skills=("menu", "submenu", "dialog")),
    DesktopTask("pcmanfm-rename", "PCManFM", 'Click todo.txt, press F2, type "groceries.txt" and press Enter',
                ("pcmanfm", "{home}/Documents"), "pcmanfm",
                all_of(is_file("Documents/groceries.txt"), is_gone("Documents/todo.txt")), files=TODO,
                skills=("icon view", "shortcut", "dialog")),
    DesktopTask("pcmanfm-rename-sentence", "PCManFM", 'Rename todo.txt to "shopping.txt"',
                ("pcmanfm", "{home}/Documents"), "pcmanfm",
                all_of(is_file("Documents/shopping.txt"), is_gone("Documents/todo.txt")), files=TODO,
                skills=("icon view", "dialog")),
    DesktopTask("pcmanfm-copy-into-folder", "PCManFM", "Click todo.txt and press ctrl+c, then double-click the "
                "Archive folder and press ctrl+v", ("pcmanfm", "{home}/Documents"), "pcmanfm",
                all_of(is_file("Documents/Archive/todo.txt"), is_file("Documents/todo.txt")), files=ARCHIVE,
                skills=("icon view", "shortcut")),
    DesktopTask("pcmanfm-drag-into-folder", "PCManFM", "Drag todo.txt onto the Archive folder",
                ("pcmanfm", "{home}/Documents"), "pcmanfm",
                all_of(is_file("Documents/Archive/todo.txt"), is_gone("Documents/todo.txt")), files=ARCHIVE,
                skills=("icon view", "drag")),
    DesktopTask("pcmanfm-empty-file", "PCManFM", 'Double-click the Archive folder, open the File menu, choose Create '
                'New, choose Empty File, type "index.txt" and press Enter', ("pcmanfm", "{home}/Documents"), "pcmanfm",
                is_file("Documents/Archive/index.txt"), files=ARCHIVE, skills=("icon view", "menu", "submenu")),
    DesktopTask("pcmanfm-location-bar", "PCManFM", 'Click the location bar, type "~/Documents/Archive" and press '
                'Enter, then press ctrl+a and press ctrl+c', ("pcmanfm", "{home}"), "pcmanfm",
                clipboard_files("Documents/Archive/old.txt"), files=ARCHIVE,
                skills=("path field", "shortcut")),
    # Zenity (GTK dialogs): the dialog prints the answer when it closes with OK
    DesktopTask("zenity-entry", "Zenity", 'Type "Ada" into the name field and click OK',
                _zenity("--entry", "--text=Your name:"), "zenity", printed("Ada"), prints=True,
                skills=("field", "button")),
    DesktopTask("zenity-entry-prefilled", "Zenity", 'Set the name field to "Grace" and click OK',
                _zenity("--entry", "--text=Your name:", "--entry-text=Ada Lovelace"), "zenity", printed("Grace"),
                prints=True, skills=("field", "prefilled")),
    DesktopTask("zenity-form", "Zenity", 'Fill in First name with "Ada", Last name with "Lovelace" and City with '
                '"London", then click OK', _zenity("--forms", "--text=Contact", "--add-entry=First name",
                                                   "--add-entry=Last name", "--add-entry=City"), "zenity",
                printed("Ada|Lovelace|London"), prints=True, skills=("form", "fields")),
    DesktopTask("zenity-form-combo", "Zenity", 'Enter "Grace" into Name, select "Large" from Size and click OK',
                _zenity("--forms", "--text=Order", "--add-entry=Name", "--add-combo=Size",
                        "--combo-values=Small|Medium|Large"), "zenity", printed("Grace|Large"), prints=True,
                skills=("form", "dropdown")),
    DesktopTask("zenity-list", "Zenity", "Click Cherry in the list and click OK",
                _zenity(*FRUITS), "zenity",
                printed("Cherry"), prints=True, skills=("list",)),
    DesktopTask("zenity-list-double-click", "Zenity", "Double-click Banana",
                _zenity(*FRUITS), "zenity",
                printed("Banana"), prints=True, skills=("list",)),
    DesktopTask("zenity-table", "Zenity", "Select the row of Lisbon and click OK",
                _zenity("--list", "--height=320", "--column=City", "--column=Country", "Paris", "France", "Lisbon",
                        "Portugal", "Oslo", "Norway"), "zenity", printed("Lisbon"), prints=True,
                skills=("list", "table")),
    DesktopTask("zenity-checklist", "Zenity", "Check Milk and Bread, then click OK",
                _zenity("--list", "--checklist", "--height=320", "--column=Buy", "--column=Item", "FALSE", "Eggs",
                        "FALSE", "Milk", "FALSE", "Bread"), "zenity", printed("Milk|Bread"), prints=True,
                skills=("list", "checkbox")),
    DesktopTask("zenity-radiolist", "Zenity", "Select Train and click OK",
                _zenity("--list", "--radiolist", "--height=320", "--column=Pick", "--column=Travel", "TRUE", "Car",
                        "FALSE", "Train", "FALSE", "Bike"), "zenity", printed("Train"), prints=True,
                skills=("list", "radio")),
    DesktopTask("zenity-question-no", "Zenity", "Click No", _zenity("--question", "--text=Delete the draft?"), "zenity",
                exit_code(1), prints=True, skills=("button",)),
    DesktopTask("zenity-question-yes", "Zenity", "Answer Yes", _zenity("--question", "--text=Keep the draft?"),
                "zenity", exit_code(0), prints=True, skills=("button",)),
    DesktopTask("zenity-calendar", "Zenity", "Click 15 in the calendar, then click OK",
                _zenity("--calendar", "--day=1", "--month=3", "--year=2026", "--date-format=%Y-%m-%d"), "zenity",
                printed("2026-03-15"), prints=True, skills=("calendar",)),
    DesktopTask("zenity-scale-end", "Zenity", "Click the slider, press End, then click OK",
                _zenity("--scale", "--text=Volume", "--min-value=0", "--max-value=100", "--value=50"), "zenity",
                printed("100"), prints=True, skills=("slider", "shortcut")),
    DesktopTask("zenity-open-file", "Zenity", "Double-click Documents, then double-click report.txt",
                _zenity("--file-selection", "--filename={home}/"), "zenity",
                printed(lambda home: str(home / "Documents/report.txt")), prints=True,
                files={"Documents/report.txt": "Q3", "Documents/notes.txt": "n"}, skills=("file dialog", "list")),
    DesktopTask("zenity-save-file", "Zenity", 'Type "results.csv" into the Name field and press Enter',
                _zenity("--file-selection", "--save", "--filename={home}/Documents/"), "zenity",
                printed(lambda home: str(home / "Documents/results.csv")), prints=True,
                skills=("file dialog", "field")),
    DesktopTask("zenity-password", "Zenity", 'Type "hunter2" into the password field and press Enter',
                _zenity("--password"), "zenity", printed("hunter2"), prints=True, skills=("field", "secret")),
    # xterm: typed commands, judged by the file system
    DesktopTask("xterm-mkdir", "xterm", 'Type "mkdir reports" and press Enter', ("xterm",), "xterm",
                is_folder("reports"), skills=("terminal",)),
    DesktopTask("xterm-write-file", "xterm", 'Type "echo hello > greeting.txt" then press Enter', ("xterm",), "xterm",
                file_text("greeting.txt", "hello"), skills=("terminal",)),
    DesktopTask("xterm-two-commands", "xterm", 'Type "cd Documents" and press Enter, then type "touch done.flag" and '
                "press Enter", ("xterm",), "xterm", is_file("Documents/done.flag"), files=TODO,
                skills=("terminal",)),
    # Gnumeric (GTK spreadsheet): saved sheets read back with ssconvert
    DesktopTask("gnumeric-formula", "Gnumeric", 'Press ctrl+End, press Down, press Home, type "Total", press Tab, '
                'type "=SUM(B2:B3)" and press Enter, then press ctrl+s',
                ("gnumeric", "{home}/Documents/budget.gnumeric"), "gnumeric",
                spreadsheet_cells("Documents/budget.gnumeric", {"A4": "Total", "B4": "1150"}),
                files=SHEET, prepare=GNUMERIC_SHEET, skills=("spreadsheet", "shortcut", "typing"), max_steps=20),
    DesktopTask("gnumeric-edit-cell", "Gnumeric", 'Press ctrl+Home, press Down twice, press Right, type "300", '
                "press Enter and press ctrl+s", ("gnumeric", "{home}/Documents/budget.gnumeric"), "gnumeric",
                spreadsheet_cells("Documents/budget.gnumeric", {"B3": "300"}), files=SHEET, prepare=GNUMERIC_SHEET,
                skills=("spreadsheet", "shortcut")),
    DesktopTask("gnumeric-save-as", "Gnumeric", 'Type "42" and press Enter, then save the file as "answer.gnumeric" '
                "in Documents", ("gnumeric",), "gnumeric", spreadsheet_cells("Documents/answer.gnumeric",
                                                                               {"A1": "42"}),
                skills=("spreadsheet", "menu", "file dialog")),
    # AbiWord (GTK word processor)
    DesktopTask("abiword-save-as", "AbiWord", 'Type "Dear Ada" and save the file as "letter.abw" in Documents',
                ("abiword",), "abiword", document_text("Documents/letter.abw", "Dear Ada"),
                skills=("typing", "menu", "file dialog")),
    DesktopTask("abiword-bold", "AbiWord", 'Press ctrl+End, press ctrl+b, type " Important" and press ctrl+s',
                ("abiword", "{home}/Documents/memo.abw"), "abiword",
                document_text("Documents/memo.abw", "Memo: Important", bold="Important"),
                files={"Documents/memo.txt": "Memo:"}, prepare=(("abiword", "--to=abw", "Documents/memo.txt"),),
                skills=("shortcut", "formatting")),
    DesktopTask("abiword-toolbar-bold", "AbiWord", 'Press ctrl+End, click the Bold button, type " Urgent" and press '
                "ctrl+s", ("abiword", "{home}/Documents/memo.abw"), "abiword",
                document_text("Documents/memo.abw", "Memo: Urgent", bold="Urgent"),
                files={"Documents/memo.txt": "Memo:"}, prepare=(("abiword", "--to=abw", "Documents/memo.txt"),),
                skills=("tool bar", "formatting")),
)

# Written after the planner and grounding fixes of the first sitting, run as they are: phrasings nobody tuned for.
UNTUNED_TASKS: tuple[DesktopTask, ...] = (
    DesktopTask("mousepad-memo-untuned", "Mousepad", 'Write "Dear team" and then save it as "memo.txt" in the '
                "Documents folder", _mousepad(), "Mousepad", file_text("Documents/memo.txt", "Dear team"),
                skills=("typing", "file dialog")),
    DesktopTask("featherpad-copy-untuned", "FeatherPad", "Open the Edit menu, click Select All, and press ctrl+c",
                ("featherpad", "{home}/Documents/todo.txt"), "featherpad", clipboard_is("buy milk"), files=TODO,
                skills=("menu", "shortcut")),
    DesktopTask("galculator-press-untuned", "Galculator", "Press 9, press *, press 9, press = and copy the result "
                "with ctrl+c", ("galculator",), "galculator", clipboard_is("81"), skills=("buttons",)),
    DesktopTask("zenity-pick-untuned", "Zenity", "Pick Durian from the list, then press OK",
                _zenity(*FRUITS), "zenity",
                printed("Durian"), prints=True, skills=("list",)),
    DesktopTask("zenity-calendar-untuned", "Zenity", "Pick 20 in the calendar and click OK",
                _zenity("--calendar", "--day=1", "--month=6", "--year=2026", "--date-format=%Y-%m-%d"), "zenity",
                printed("2026-06-20"), prints=True, skills=("calendar",)),
    DesktopTask("pcmanfm-folder-untuned", "PCManFM", 'Make a new folder called "Photos"',
                ("pcmanfm", "{home}/Documents"), "pcmanfm", is_folder("Documents/Photos"), files=TODO,
                skills=("icon view",)),
    DesktopTask("zenity-form-untuned", "Zenity", 'Put "Turing" in the Last name field and "Alan" in the First name '
                "field, then hit OK", _zenity("--forms", "--text=Contact", "--add-entry=First name",
                                              "--add-entry=Last name"), "zenity", printed("Alan|Turing"),
                prints=True, skills=("form", "fields")),
    DesktopTask("xterm-list-untuned", "xterm", 'Run the command "ls -a > all.txt" in the terminal', ("xterm",),
                "xterm", file_has_line("all.txt", "Documents"), files=TODO, skills=("terminal",)),
    # Written in the second sitting, with the accessibility source built, before their first run.
    DesktopTask("mousepad-tab-untuned", "Mousepad", 'Go to the todo.txt tab, press ctrl+End, type " and bread" and '
                "save it", _mousepad("{home}/Documents/todo.txt", "{home}/Documents/notes.txt"), "Mousepad",
                all_of(file_text("Documents/todo.txt", "buy milk and bread"),
                       file_text("Documents/notes.txt", "meeting at 10")),
                files={**TODO, "Documents/notes.txt": "meeting at 10"}, skills=("tabs", "typing")),
    DesktopTask("abiword-toolbar-untuned", "AbiWord", "Select everything with ctrl+a, hit the Bold button and save "
                "the document with ctrl+s", ("abiword", "{home}/Documents/memo.abw"), "abiword",
                document_text("Documents/memo.abw", "Memo: call Bob", bold="Memo: call Bob"),
                files={"Documents/memo.txt": "Memo: call Bob"},
                prepare=(("abiword", "--to=abw", "Documents/memo.txt"),), skills=("tool bar", "formatting")),
    DesktopTask("featherpad-choose-untuned", "FeatherPad", "Choose Select All from the Edit menu, then choose Copy "
                "from the Edit menu", ("featherpad", "{home}/Documents/todo.txt"), "featherpad",
                clipboard_is("buy milk"), files=TODO, skills=("menu",)),
    DesktopTask("galculator-click-untuned", "Galculator", "Click the 7 button, click the + button, click 8, click "
                "the = button, then copy the result using ctrl+c", ("galculator",), "galculator", clipboard_is("15"),
                skills=("buttons",)),
    DesktopTask("pcmanfm-rename-untuned", "PCManFM", 'Rename notes.txt as "minutes.txt"',
                ("pcmanfm", "{home}/Documents"), "pcmanfm",
                all_of(is_file("Documents/minutes.txt"), is_gone("Documents/notes.txt")),
                files={"Documents/notes.txt": "meeting at 10"}, skills=("icon view", "rename")),
)
TASKS = TASKS + UNTUNED_TASKS

SMOKE_TASKS = ("zenity-entry", "mousepad-append", "galculator-multiply", "featherpad-edit-menu-copy")


def task_named(name: str) -> DesktopTask:
    for task in TASKS:
        if task.name == name:
            return task
    raise KeyError(name)
