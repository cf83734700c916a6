"""Everyday requests to desktop apps read as the grammar's steps (planner/everyday/): the readings against
screens of each kind, the requests left alone, and real applications driven by the offline planner from words its
grammar refuses as written."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import deskpilot, read_state

from deskpilot.core.episode import list_episodes, read_episode
from deskpilot.core.geometry import Box
from deskpilot.core.observation import Element
from deskpilot.planner.everyday import grammar_takes, may_read_everyday, read_everyday
from deskpilot.planner.instructions import parse_instructions


def _element(text: str, role: str = "text") -> Element:
    return Element(Box(0, 0, 10, 10), role, text)  # type: ignore[arg-type]


EDITOR = [_element("File", "menu_item"), _element("Edit", "menu_item"), _element("buy milk", "input")]
TOOL_BAR_EDITOR = [*EDITOR, _element("Save", "button")]
CALCULATOR = [_element(str(d), "button") for d in range(10)] + [_element(k, "button") for k in ("+", "-", "×", "÷",
                                                                                                 "=", "C")]
CALENDAR = [_element("March"), *(_element(" ".join(str(d) for d in range(start, min(start + 7, 32))))
                                  for start in range(1, 32, 7)), _element("OK", "button")]  # a week a line
SAVE_DIALOG = [_element("Name:"), _element("", "input"), _element("Home"), _element("Documents"),
               _element("Save", "button"), _element("Cancel", "button")]
FILES = [_element("todo.txt"), _element("Archive"), _element("notes.txt")]
SHEET = [*(_element(c) for c in "ABCDEF"), *(_element(str(r)) for r in range(1, 9))]
NAME_DIALOG = [Element(Box(20, 60, 110, 84), "text", "Your name:"), Element(Box(120, 60, 300, 84), "input", ""),
               Element(Box(200, 200, 260, 224), "button", "OK")]
SLIDER = [_element("Volume"), _element("", "slider"), _element("OK", "button")]
ORDER_FORM = [Element(Box(20, 60, 80, 84), "text", "Name"), Element(Box(120, 60, 300, 84), "input", ""),
              Element(Box(20, 100, 80, 124), "text", "Size"), Element(Box(120, 100, 300, 124), "dropdown", ""),
              Element(Box(200, 200, 260, 224), "button", "OK")]
PASSWORD_DIALOG = [Element(Box(20, 60, 110, 84), "text", "Password:"), Element(Box(120, 60, 300, 84), "input", ""),
                   Element(Box(100, 200, 160, 224), "button", "Cancel"),
                   Element(Box(200, 200, 260, 224), "button", "OK")]


def _read(task: str, screen: list[Element]) -> str | None:
    reading = read_everyday(task, screen)
    return reading.task if reading else None


@pytest.mark.parametrize("task, expected", [
    ("Go to the very end of the file, add ' and eggs' and save", 'press ctrl+End, type " and eggs", press ctrl+s'),
    ("Add an exclamation mark at the very end and save the file", 'press ctrl+End, type "!", press ctrl+s'),
    ("Put a full stop after the last word", 'press ctrl+End, type "."'),
    ("At the end of the text add the words ' see you'", 'press ctrl+End, type " see you"'),
    ("Replace everything in the document with the word finished", 'press ctrl+a, type "finished"'),
    ("Overwrite the file with hello world and save your changes", 'press ctrl+a, type "hello world", press ctrl+s'),
    ("Clear all of the text, then write draft instead", 'press ctrl+a, press Delete, type "draft"'),
    ("Type out Minutes of Monday, then store it as minutes.txt in the Documents folder",
     'type "Minutes of Monday", save the file as "minutes.txt" in Documents'),
    ("Save a file called plan.md in Desktop that says step one",
     'type "step one", save the file as "plan.md" in Desktop'),
    ("Keep the document under the name report.odt", 'save the file as "report.odt"'),
    ("Append ' and eggs' to the file and save it", 'press ctrl+End, type " and eggs", press ctrl+s'),
    ("Stick ' and eggs' on the end of the line and save", 'press ctrl+End, type " and eggs", press ctrl+s'),
    ("Add a ! to the end of the text", 'press ctrl+End, type "!"'),
    ("Put Dear team in a new file memo.txt in Documents", 'type "Dear team", save the file as "memo.txt" in Documents'),
    ("Make a file qt.txt in Documents containing Qt notes", 'type "Qt notes", save the file as "qt.txt" in Documents'),
    ("Using the Edit menu, select all and then copy",
     'open the Edit menu, choose "Select All", open the Edit menu, choose "Copy"'),
    ("Change all the text to finished and save it", 'press ctrl+a, type "finished", press ctrl+s'),
    ("End the sentence with a question mark", 'press ctrl+End, type "?"'),
    ("Copy the whole text", "press ctrl+a, press ctrl+c"),
    ("Save Hello world as greet.txt in Desktop", 'type "Hello world", save the file as "greet.txt" in Desktop'),
    ("Could you save the document to Documents, then name it notes.txt",
     'save the file as "notes.txt" in Documents'),
    ("From the Edit menu choose Select All, then Copy",
     'open the Edit menu, choose "Select All", open the Edit menu, choose "Copy"'),
    ("Use Edit > Paste to put it back", 'open the Edit menu, choose "Paste"'),
    ("Write shopping list and use File > Save As to call it list.txt",
     'type "shopping list", save the file as "list.txt"'),
    ("Type ' today' at the end", 'press ctrl+End, type " today"'),  # the grammar would type " today at the end"
    ("Select all and delete it", "press ctrl+a, press Delete"),
    ("At the end of the memo add ' Important' in bold and save it",
     'press ctrl+End, press ctrl+b, type " Important", press ctrl+s'),
    ("Use the Edit menu to select everything and copy it",
     'open the Edit menu, choose "Select All", open the Edit menu, choose "Copy"'),
    # a menu and its item said as two, a menu said again as "that menu", the clipboard said as a place
    ("Write notes in the document, then go to File, Save As and save it as notes.txt",
     'type "notes", open the File menu, choose "Save As", save the file as "notes.txt"'),
    ("Click Edit then Copy", 'open the Edit menu, choose "Copy"'),
    ("Open File -> Save As to store it as draft.txt",
     'open the File menu, choose "Save As", save the file as "draft.txt"'),
    ("Select All from the Edit menu, then Paste from that menu",
     'open the Edit menu, choose "Select All", open the Edit menu, choose "Paste"'),
    ("Get all the text onto the clipboard", "press ctrl+a, press ctrl+c"),
    ("Highlight everything, type finished over it", 'press ctrl+a, type "finished"'),  # not "finished over it"
    ("Write ' and milk' after what is there and save", 'press ctrl+End, type " and milk", press ctrl+s'),
    ("End the line with a ? and save", 'press ctrl+End, type "?", press ctrl+s'),  # a mark after a space is typed
    ("Add a hash sign # at the end", 'press ctrl+End, type "#"'),  # the mark said by name, then shown
    ("At the end of the memo, write ' thanks'", 'press ctrl+End, type " thanks"'),
    ("Write 'hello there'", 'type "hello there"'),  # a text to write, not a name to save as
    ("Copy all of it", "press ctrl+a, press ctrl+c"),
    ("Type notes into a new document, stored as n.txt in Desktop",
     'press ctrl+n, type "notes", save the file as "n.txt" in Desktop'),
    ("Type draft; from the File menu, Save As, file name d.txt",
     'type "draft", open the File menu, choose "Save As", save the file as "d.txt"'),
    ("Write notes and use Save As from the File menu to store it as n.txt",
     'type "notes", open the File menu, choose "Save As", save the file as "n.txt"'),
    ("With the Edit menu: Select All, then Paste",
     'open the Edit menu, choose "Select All", open the Edit menu, choose "Paste"'),
    ("Click File, pick Save As again", 'open the File menu, choose "Save As"'),
    ("Create plan.md in Desktop with the words step one", 'type "step one", save the file as "plan.md" in Desktop'),
])
def test_editing_requests_become_the_keys_editors_share(task, expected):
    assert may_read_everyday(task)
    assert _read(task, EDITOR) == expected
    parse_instructions(expected)  # the grammar takes each reading


@pytest.mark.parametrize("task, expected", [
    ("Open a new tab and go to example.com", 'press ctrl+t, press ctrl+l, type "example.com", press Enter'),
    ("Reload the page, then go back a page", "press F5, press alt+Left"),
    ("Undo the last change", "press ctrl+z"),
    ("Show hidden files and go up a folder", "press ctrl+h, press alt+Up"),
    ("Find the word milk in the text", 'press ctrl+f, type "milk"'),
    ("Create a new document and write hello", 'press ctrl+n, type "hello"'),
])
def test_commands_every_desktop_binds_to_the_same_keys(task, expected):
    assert _read(task, EDITOR) == expected


REPLACED = ('type "eggs" into the first text field, type "ham" into the second text field, click "Replace", '
            'close the dialog')


@pytest.mark.parametrize("task, expected", [
    ("Replace eggs with ham using Find and Replace", f'open the Edit menu, choose "Find and Replace", {REPLACED}'),
    ("With Find and Replace, change eggs to ham", f'open the Edit menu, choose "Find and Replace", {REPLACED}'),
    ("Open Edit > Find and Replace and swap eggs for ham, then save",
     f'open the Edit menu, choose "Find and Replace", {REPLACED}, press ctrl+s'),
    ("Use Edit > Search and Replace to turn eggs into ham",
     f'open the Edit menu, choose "Search and Replace", {REPLACED}'),
])
def test_a_word_replaced_through_the_editors_replace_dialog_fills_its_two_fields(task, expected):
    assert _read(task, EDITOR) == expected
    assert _read("Replace eggs with ham using Find and Replace", CALCULATOR) is None  # no menu that holds it


def test_two_names_joined_by_and_are_one_only_where_they_name_a_tool():
    reading = _read("Tick the box with Ada and Grace, then submit", PASSWORD_DIALOG)
    assert reading is None or '"Ada and Grace"' not in reading  # two names; not one menu item "Find and Replace"


def test_a_menu_said_alone_is_one_only_where_the_menu_bar_has_it():
    assert _read("Use Tools then Options", EDITOR) is None  # no Tools menu here: not read as one


@pytest.mark.parametrize("task, expected", [
    ("Add ' done' at the end and save with the Save button", 'press ctrl+End, type " done", click the Save button'),
    ("Store the file by clicking the Save icon on the toolbar", "click the Save button"),
    ("Save it using the tool bar's Save button", "click the Save button"),
])
def test_a_request_done_by_a_button_it_names_is_that_buttons_click(task, expected):
    assert _read(task, TOOL_BAR_EDITOR) == expected
    assert _read(task, EDITOR) is None  # no such button in sight


@pytest.mark.parametrize("task, expected", [
    ("What is 12 times 12? Copy the result", 'type "12*12=". press ctrl+c'),
    ("Calculate seven times six and copy the answer", 'type "7*6=", press ctrl+c'),
    ("Subtract 3 from 10", 'type "10-3="'),
    ("How much is 3 plus 4 plus 5?", 'type "3+4+5="'),
    ("What is 9 squared?", 'type "9*9="'),
    ("Press C to clear, then work out 2 plus 2", 'click "C", type "2+2="'),
    ("Divide 100 by 8, then copy what it shows to the clipboard", 'type "100/8=", press ctrl+c'),
    ("How much is 7 times 8? Put the answer on the clipboard", 'type "7*8=". press ctrl+c'),
    ("6 x 7 = ? copy it", 'type "6*7=". press ctrl+c'),  # a question mark after a space ends a question
    ("Key in 12, hit C, then find 3 plus 4", 'type "12", click "C", type "3+4="'),
    ("9 minus 4 — copy the result", 'type "9-4=", press ctrl+c'),
    ("Work out the sum of 4 and 9", 'type "4+9="'),
    ("Using the calculator's buttons, add 42 and 8, then copy the total",
     'click "4", click "2", click "+", click "8", click "=", press ctrl+c'),
    ("Multiply 6 by 7 with the buttons", 'click "6", click "×", click "7", click "="'),
    ("Type 999, clear it, then work out 7 minus 2", 'type "999", click "C", type "7-2="'),
    ("Punch in 55, reset it using C, then find 9 plus 1", 'type "55", click "C", type "9+1="'),
    ("Hit the keys for 6 + 3", 'click "6", click "+", click "3", click "="'),
    ("Use the keypad to add 2 and 5", 'click "2", click "+", click "5", click "="'),
])
def test_sums_are_worked_out_on_the_calculator_the_screen_shows(task, expected):
    assert _read(task, CALCULATOR) == expected


def test_a_sum_is_no_calculation_where_no_calculator_is_in_sight():
    assert _read("What is 12 times 12? Copy the result", EDITOR) is None


@pytest.mark.parametrize("task, expected", [
    ("Make a directory called reports from the terminal", 'run the command "mkdir reports"'),
    ("In the terminal, write hello into a file named greeting.txt", 'run the command "echo hello > greeting.txt"'),
    ("Use the shell to make notes.txt containing buy milk", "run the command \"echo 'buy milk' > notes.txt\""),
    ("Run ls -a > all.txt in the terminal", 'run the command "ls -a > all.txt"'),
    ("From the terminal, list the files into names.txt", 'run the command "ls > names.txt"'),
    ("In the shell, save a list of all files plus the hidden ones to every.txt", 'run the command "ls -a > every.txt"'),
    ("In a terminal, go into Documents and create an empty file done.flag",
     'run the command "cd Documents", run the command "touch done.flag"'),
])
def test_shell_commands_said_in_words_are_typed_with_their_values_quoted(task, expected):
    assert _read(task, EDITOR) == expected


def test_a_hostile_value_is_one_argument_of_the_one_command_the_words_name():
    reading = _read("In the terminal, write 'x; rm -rf ~' into a file named a.txt", EDITOR)
    assert reading == "run the command \"echo 'x; rm -rf ~' > a.txt\""
    # no terminal said or shown: a folder made the way file managers make one
    assert _read("Make a directory called reports", EDITOR) == 'create a new folder named "reports"'


@pytest.mark.parametrize("task, screen, expected", [
    ("My name is Ada, enter it and confirm", [], 'type "Ada" into the name field, confirm'),
    ("The password is hunter2, submit it", [], 'type "hunter2" into the password field, press Enter'),
    ("I want Cherry, pick it and confirm", [], 'click "Cherry", confirm'),
    ("Pick the 15th and confirm", CALENDAR, 'click "15", confirm'),
    ("Set the date to the 3rd, then press OK", CALENDAR, 'click "3", press OK'),
    ("Reply no", [], "answer No"),
    ("I need milk and bread; tick both and confirm", [], 'tick "milk", tick "bread", confirm'),
    ("todo.txt should be called shopping.txt, rename it", FILES, 'rename "todo.txt" to "shopping.txt"'),
    ("notes.txt needs to be renamed to minutes.txt", FILES, 'rename "notes.txt" to "minutes.txt"'),
    ("The name should be Grace, then OK", NAME_DIALOG, 'set the Your name field to "Grace", click "OK"'),
    ("My name is Ada, enter it and confirm", NAME_DIALOG, 'set the Your name field to "Ada", confirm'),
    ("Change todo.txt's name to shopping.txt", FILES, 'rename "todo.txt" to "shopping.txt"'),
    ("Make me a folder named Projects", FILES, 'create a new folder named "Projects"'),
    ("Cherry please, then OK", [_element("Banana"), _element("Cherry"), _element("OK", "button")],
     'click "Cherry", click "OK"'),
    ("Tick the boxes for Milk and Bread, then OK", [_element("Milk"), _element("Bread"), _element("OK", "button")],
     'tick "Milk", Bread, click "OK"'),
    ("Move the slider all the way to the right, then OK", SLIDER, 'click the slider, press End, click "OK"'),
    ("In the terminal create greeting.txt with hello in it", [], 'run the command "echo hello > greeting.txt"'),
    ("Drag and drop todo.txt into the Archive folder", FILES, 'drag "todo.txt" onto "Archive"'),
    ("Open Banana from the list with a double click", [], 'double-click "Banana"'),
    ("New folder, call it Music", [], 'create a new folder named "Music"'),
    ("Give notes.txt the new name minutes.txt", [], 'rename "notes.txt" to "minutes.txt"'),
    ("I need a new folder called Photos", [], 'create a new folder named "Photos"'),
    ("Use the mouse to move todo.txt into Archive", FILES, 'drag "todo.txt" onto "Archive"'),
    ("Using the terminal, create done.flag inside Documents", [], 'run the command "touch Documents/done.flag"'),
    ("Choose March 15 and press OK", CALENDAR, 'click "15", press OK'),
    ("Set the volume to its maximum", SLIDER, "click the slider, press End"),
    ("Name the file results.csv and click Save", SAVE_DIALOG, 'set the Name field to "results.csv", press Enter'),
    ("Save it as results.csv", SAVE_DIALOG, 'set the Name field to "results.csv", press Enter'),
    ("Turn the volume all the way up and confirm", SLIDER, "click the slider, press End, confirm"),
    ("Call the file results.csv and save it", SAVE_DIALOG, 'set the Name field to "results.csv", press Enter'),
    ("Put a copy of todo.txt into the Archive folder", FILES,
     'click "todo.txt", press ctrl+c, double-click "Archive", press ctrl+v'),
    ("Move todo.txt into Archive with the mouse", FILES, 'drag "todo.txt" onto "Archive"'),
    ("Put 42 in the first cell", SHEET, 'press ctrl+Home, type "42", press Enter'),
    # "submit" where no Submit button shows: the dialog's own confirming; where one shows, that button
    ("Type s3cret in the password field, then submit the form", PASSWORD_DIALOG,
     "Type s3cret in the password field, confirm"),
    ("Type s3cret in the password field, then submit", [*PASSWORD_DIALOG, _element("Submit", "button")],
     'Type s3cret in the password field, click "Submit"'),
    # a file manager's moves said one at a time; a folder's path through the location bar
    ("Drag notes.txt and drop it into Archive", FILES, 'drag "notes.txt" onto "Archive"'),
    ("Cut notes.txt, go into Archive and paste it", FILES,
     'click "notes.txt", press ctrl+x, double-click "Archive", press ctrl+v'),
    ("Open notes.txt from the Archive folder", FILES, 'double-click "Archive", double-click "notes.txt"'),
    ("Rename todo.txt, naming it list.txt", FILES, 'rename "todo.txt" to "list.txt"'),
    ("I want notes.txt renamed to old.txt", FILES, 'rename "notes.txt" to "old.txt"'),
    ("todo.txt should be named list.txt from now on", FILES, 'rename "todo.txt" to "list.txt"'),
    ("New directory: Music", FILES, 'create a new folder named "Music"'),
    ("Drag notes.txt over into Archive", FILES, 'drag "notes.txt" onto "Archive"'),
    ("Go with Cherry, then OK", [_element("Banana"), _element("Cherry"), _element("OK", "button")],
     'click "Cherry", click "OK"'),
    ("Enter /tmp/x into the address bar and press Enter", FILES, 'press ctrl+l, type "/tmp/x", press Enter'),
    ("Using the terminal, mkdir logs and touch notes.md", [],
     'run the command "mkdir logs", run the command "touch notes.md"'),
    ("Type Ada for Name and pick Small for Size", ORDER_FORM,
     'type "Ada" into the Name field, select "Small" from Size'),
    ("Within the Archive folder, paste it", FILES, 'double-click "Archive", press ctrl+v'),
    ("Place a copy of notes.txt in Archive", FILES,
     'click "notes.txt", press ctrl+c, double-click "Archive", press ctrl+v'),
    ("Make a new folder by the name Music", FILES, 'create a new folder named "Music"'),
    ("Choose the Banana entry and press OK", [_element("Banana"), _element("Cherry"), _element("OK", "button")],
     'click "Banana", press OK'),
    ("Select both Banana and Cherry, then OK", [_element("Banana"), _element("Cherry"), _element("OK", "button")],
     'Select Banana, Cherry, click "OK"'),
    ("Enter your password s3cret and confirm", PASSWORD_DIALOG, 'type "s3cret" into the Password field, confirm'),
    ("Navigate to /tmp/reports with the address bar, select all the files, then copy them", FILES,
     'press ctrl+l, type "/tmp/reports", press Enter, press ctrl+a, press ctrl+c'),
    ("Change the value in B3 to 300 and save", SHEET,
     'press ctrl+Home, press Down 2 times, press Right 1 times, type "300", press Enter, press ctrl+s'),
])
def test_dialogs_files_and_cells_are_read_against_the_screen(task, screen, expected):
    assert _read(task, screen) == expected


def test_a_fields_label_and_its_value_said_alone_are_typed_into_that_field():
    form = [_element("Contact"), _element("First name"), _element("", "input"), _element("Last name"),
            _element("", "input"), _element("City"), _element("", "input"), _element("Cancel", "button"),
            _element("OK", "button")]
    for index, element in enumerate(form):  # each label left of its field, a row each
        row = (index - 1) // 2
        x0 = 20 if element.role == "text" else 120
        form[index] = Element(Box(x0, 60 + 40 * row, x0 + 90, 84 + 40 * row), element.role, element.text)
    assert _read("First name Ada, last name Lovelace, city London, then OK", form) == \
        'type "Ada" into the First name field, type "Lovelace" into the Last name field, ' \
        'type "London" into the City field, click "OK"'
    assert _read("Fill the form with Ada as first name, Lovelace as last name and London as the city, then OK",
                 form) == 'type "Ada" into the First name field, type "Lovelace" into the Last name field, ' \
        'type "London" into the City field, click "OK"'
    assert _read("Enter Ada for First name, Lovelace for Last name, London for City and click OK", form) == \
        'type "Ada" into the First name field, type "Lovelace" into the Last name field, ' \
        'type "London" into the City field, click OK'
    assert not may_read_everyday("Enter Ada for the name")  # before a screen: the grammar's refusal stands
    assert _read("First name Ada, shoe size 9, then OK", form) is None  # no field is labelled "shoe size"


@pytest.mark.parametrize("task, screen", [
    ("My name is Ada, then click OK", []),  # a value stated and never acted on is not dropped
    ("I need milk and bread; pick it", []),  # "it" for two values
    ("My name is Ada, Grace", []),  # a name after a statement: nothing to act on
    # MiniWoB's click-checkboxes-soft: a word after a comma is more of the verb before, not a choice of its own
    ("Select words similar to end, slice, homes and click Submit.", [_element("slice"), _element("homes")]),
    ("Pick April 3", CALENDAR),  # a month the calendar does not show
    ("New folder", []),  # a folder never named
    ("Save the file to Documents", EDITOR),  # a folder, and never a name
    ("Move todo.txt into Archive", EDITOR),  # neither shown: no file manager in sight
    ("Type your name and save", EDITOR),  # a description, not a text to type
    ("Add Ada to the guest list", EDITOR),  # a place, not a text at the document's end
    ("Pick the 15th and confirm", EDITOR),  # no calendar: the grammar's own refusal stands
    ("Call the file results.csv and email it to Bob", SAVE_DIALOG),  # a clause no convention takes
    ("Copy todo.txt", EDITOR),  # no files in sight: a file manager's copy is no reading here
    ("Open Archive and paste it", CALCULATOR),
    ("Rename todo.txt", FILES),  # a file to rename, and never a name
    ("Choose the Durian option", [_element("Banana"), _element("Cherry")]),  # no such option in sight
])
def test_requests_no_convention_takes_whole_are_left_as_written(task, screen):
    assert _read(task, screen) is None


def test_a_reading_by_what_only_this_screen_shows_stands_where_the_grammar_reads_the_words_otherwise():
    assert grammar_takes("Choose March 15 and press OK")  # as a click on a thing called "March 15"
    assert read_everyday("Choose March 15 and press OK", CALENDAR).screen_bound
    assert not read_everyday("Go to the very end of the file and add '!'", EDITOR).screen_bound


def test_a_task_in_the_grammars_own_words_reads_no_differently():
    assert grammar_takes('Type "Ada" into the name field and click OK')
    assert not may_read_everyday('Type "Ada" into the name field and click OK')


APPS = ("openbox", "mousepad", "galculator", "zenity", "xclip", "dbus-daemon")


@pytest.mark.display
@pytest.mark.skipif(any(shutil.which(a) is None for a in APPS),
                    reason="the desktop suite's applications are installed by installers/setup.sh --bench")
def test_the_offline_planner_does_everyday_requests_on_real_apps(tmp_path):
    words = tmp_path / "words.json"
    words.write_text(json.dumps({"instructions": [
        {"task": "galculator-multiply", "text": "What is 12 times 12? Copy the result"},
        {"task": "mousepad-append", "text": "Go to the very end of the file, add ' and eggs' and save"},
        {"task": "mousepad-tab-untuned", "text": "Switch to the todo.txt tab, add ' and bread' at the end and save"},
        {"task": "mousepad-find-replace", "text": "Replace milk with bread using Find and Replace and save the file"},
        {"task": "zenity-entry", "text": "My name is Ada, enter it and confirm"},
        {"task": "zenity-calendar", "text": "Choose the 15th of March, then press OK"},
        {"task": "zenity-save-file", "text": "Save it as results.csv"},
    ]}))
    report_file = tmp_path / "report.json"
    result = deskpilot("eval", "desktop", "--instructions", str(words), "--planner", "offline", "--json",
                       str(report_file), "--episodes-dir", str(tmp_path / "episodes"), timeout=400)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(report_file.read_text())
    assert report["mean_success_rate"] == 1.0, result.stderr[-3000:]


@pytest.mark.display
def test_a_password_stated_in_words_stays_a_secret_once_the_task_is_read(unseen_form, tmp_path):
    state = unseen_form("reveal")
    result = deskpilot("run", "My password is Kx7qWv2z, enter it and tick Show password", "--planner", "offline",
                       "--episodes-dir", str(tmp_path / "ep"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_state(state)["fields"]["password"] == "Kx7qWv2z" and read_state(state)["shown"]
    assert "Kx7qWv2z" not in result.stdout + result.stderr
    episode = list_episodes(tmp_path / "ep")[0]
    assert "read as" in read_episode(episode).steps[0].thought  # the reading is named in the episode
    for path in episode.rglob("*.json*"):
        assert "Kx7qWv2z" not in path.read_text()


@pytest.mark.parametrize(("said", "written"), [
    ("use Edit → Select All and then Edit → Copy", "use Edit > Select All and then Edit > Copy"),
    ("File->Save As", "File > Save As"), ('type "a -> b" into Notes', 'type "a -> b" into Notes')])
def test_an_arrow_between_a_menu_and_its_item_is_the_grammars_path(said, written):
    """Desktop set 9: "Edit → Copy" was read as nothing and said done on a press of Edit alone; the agent reads the
    task with each arrow as the grammar's ">" (a quoted value kept), so the menu path is read as one."""
    from deskpilot.core.task_text import menu_paths

    assert menu_paths(said) == written
    if said.startswith("use Edit"):
        reading = read_everyday(menu_paths(said), EDITOR)
        assert reading is not None and reading.task.endswith('open the Edit menu, choose "Copy"')
