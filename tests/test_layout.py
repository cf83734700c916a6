"""Controls found from outlines on a drawn screen: a button around centred text, empty and filled fields (password
dots, a thick focus ring), a dropdown with its arrow, check boxes and radio circles named by their labels, and
what must not count (letters, panels of text, containers of other controls); narrow tabs named by the lone digit each
holds, read alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from deskpilot.core.geometry import Box, Monitor
from deskpilot.core.observation import Observation, parted_field
from deskpilot.grounding import OcrGrounder
from deskpilot.grounding.layout import find_widgets, ink_box
from deskpilot.grounding.ocr import TextLine
from deskpilot.grounding.widgets import find_field, find_toggle, toggle_checked

INK, FRAME = (20, 20, 20), (120, 120, 120)


def text(image: np.ndarray, words: str, x: int, y: int, colour=INK) -> TextLine:
    """Draw `words` with its baseline at y; the TextLine OCR would give for it."""
    (w, h), base = cv2.getTextSize(words, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
    cv2.putText(image, words, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 1, cv2.LINE_AA)
    return TextLine(Box(x, y - h, x + w, y + base), words, 0.99)


@pytest.fixture(scope="module")
def screen() -> tuple[np.ndarray, list[TextLine]]:
    image = np.full((520, 640, 3), 255, np.uint8)
    lines = []
    # A panel with three lines of instructions at its top: not a control.
    cv2.rectangle(image, (10, 10), (400, 110), FRAME, 1)
    lines += [text(image, "Fill in the form below", 16, 30), text(image, "and press Save.", 16, 52),
              text(image, "Nothing else.", 16, 74)]
    # Two empty fields, one filled with password dots and a thick focus ring.
    cv2.rectangle(image, (20, 130), (300, 165), FRAME, 1)
    cv2.rectangle(image, (20, 185), (300, 220), (30, 30, 30), 3)
    for i in range(3):
        cv2.circle(image, (36 + 12 * i, 202), 4, INK, -1)
    # A dropdown: text at the left, an arrow at the right.
    cv2.rectangle(image, (20, 240), (300, 275), FRAME, 1)
    lines.append(text(image, "Aurora", 28, 264))
    cv2.fillPoly(image, [np.array([[270, 252], [290, 252], [280, 264]])], INK)
    # A check box and a radio circle with labels.
    cv2.rectangle(image, (20, 300), (38, 318), FRAME, 1)
    lines.append(text(image, "Remember me", 48, 315))
    cv2.circle(image, (29, 350), 9, FRAME, 1)
    cv2.circle(image, (29, 350), 4, INK, -1)
    lines.append(text(image, "Express", 48, 356))
    # A tab bar: a frame around three buttons.
    cv2.rectangle(image, (10, 380), (420, 440), FRAME, 1)
    for i, name in enumerate(("One", "Two", "Three")):
        x = 20 + 130 * i
        cv2.rectangle(image, (x, 390), (x + 120, 430), (235, 235, 235), -1)
        cv2.rectangle(image, (x, 390), (x + 120, 430), FRAME, 1)
        lines.append(text(image, name, x + 60 - cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)[0][0] // 2,
                          416))
    # A button with centred text.
    cv2.rectangle(image, (440, 460), (600, 500), (235, 235, 235), -1)
    cv2.rectangle(image, (440, 460), (600, 500), FRAME, 1)
    lines.append(text(image, "Save", 497, 486))
    return image, lines


def test_controls_are_found_with_their_kind_and_text(screen):
    image, lines = screen
    found = [(w.role, w.text, w.checked) for w in find_widgets(image, lines)]
    assert found == [("input", "", None), ("input", "", None), ("dropdown", "Aurora", None),
                     ("checkbox", "Remember me", False), ("radio", "Express", True),
                     ("button", "One", None), ("button", "Two", None), ("button", "Three", None),
                     ("button", "Save", None)]


def test_tk_check_boxes_read_into_their_labels_line_and_ticked_by_a_fill_are_found():
    """Tk draws a check box as a sunken square (dark top and left sides, light bottom and right) on a grey window and
    ticks it by filling it; OCR reads an empty one into its label's line, from the box's left side or from its
    middle."""
    image = np.full((160, 320, 3), 217, np.uint8)
    lines = []
    for y, ticked, line_from, name in ((20, False, 10, "Billable to client"), (60, True, None, "Has receipt"),
                                       (100, False, 15, "Urgent")):
        cv2.rectangle(image, (10, y), (19, y + 9), (255, 255, 255), -1)
        cv2.line(image, (10, y), (19, y), (130, 130, 130))
        cv2.line(image, (10, y), (10, y + 9), (130, 130, 130))
        if ticked:
            cv2.rectangle(image, (11, y + 1), (18, y + 8), (99, 99, 99), -1)
        line = text(image, name, 26, y + 9)
        lines.append(line if line_from is None else TextLine(Box(line_from, line.box.y0, line.box.x1, line.box.y1),
                                                               name, 0.99))
    found = [(w.role, w.text, w.checked) for w in find_widgets(image, lines)]
    assert found == [("checkbox", "Billable to client", False), ("checkbox", "Has receipt", True),
                     ("checkbox", "Urgent", False)]
    # Under the pointer Tk lightens the box's surroundings and the edges of its border run into its fill's: the box
    # found is the fill alone, too small to look inside with a margin. Its plain colour says ticked or not.
    hovered = np.full((40, 40, 3), 236, np.uint8)
    cv2.rectangle(hovered, (10, 10), (21, 21), (142, 142, 142), -1)
    cv2.rectangle(hovered, (11, 11), (21, 21), (255, 255, 255), -1)
    cv2.rectangle(hovered, (11, 11), (20, 20), (74, 74, 74), -1)
    assert toggle_checked(hovered, Box(12, 12, 20, 20)) is True
    cv2.rectangle(hovered, (11, 11), (20, 20), (255, 255, 255), -1)
    assert toggle_checked(hovered, Box(12, 12, 20, 20)) is False
    cv2.line(hovered, (12, 15), (19, 15), (0, 0, 0))  # not one plain colour: too small to tell
    assert toggle_checked(hovered, Box(12, 12, 20, 20)) is None
    band = np.full((60, 200, 3), 40, np.uint8)  # an empty white box on a dark band is not ticked
    cv2.rectangle(band, (20, 20), (33, 33), (255, 255, 255), -1)
    cv2.rectangle(band, (20, 20), (33, 33), (130, 130, 130), 1)
    assert toggle_checked(band, Box(20, 20, 34, 34)) is False


def test_a_fields_text_cursor_does_not_split_it_into_two_controls():
    """A caret's line from the field's top to its bottom closes two frames inside it: still one input, its text."""
    image = np.full((80, 400, 3), 217, np.uint8)
    cv2.rectangle(image, (40, 20), (340, 44), (255, 255, 255), -1)
    cv2.rectangle(image, (40, 20), (340, 44), (130, 130, 130), 1)
    line = text(image, "Metro Tax", 44, 38)
    cv2.line(image, (line.box.x1 + 2, 22), (line.box.x1 + 2, 42), INK, 1)
    found = find_widgets(image, [line])
    assert [(w.role, w.text) for w in found] == [("input", "Metro Tax")], found
    assert near(found[0].box, (40, 20, 341, 45)), found


def test_a_focused_fields_inside_right_of_its_caret_is_the_field_not_a_control_in_it():
    """A Qt field that has "ada@example.org" typed, its caret right after the text: the caret closes the inside
    right of it into a frame, while the text's own part, broken by its letters, forms none as tall. The field is
    still one input holding its text (it was an empty input right of the text, and the goal check read the field
    empty)."""
    image = cv2.imread(str(Path(__file__).parent / "data" / "qt-field-caret-after-text.png"))
    obs = Observation(image=image, monitor=Monitor(0, 0, image.shape[1], image.shape[0]), cursor=None)
    fields = [e for e in OcrGrounder().parse(obs) if e.role == "input"]
    assert [e.text[:11] for e in fields] == ["ada@example"], fields
    assert near(fields[0].box, (85, 16, 525, 41)), fields


def test_a_time_fields_empty_parts_read_as_pieces_are_one_field():
    """Chrome's time input shows "--:-- --"; OCR read it as three overlapping pieces on one row ("- - :", ": - -",
    "--"), and a frame holding several lines passed for a panel of text: no field to type the time into."""
    image = np.full((80, 400, 3), 255, np.uint8)
    cv2.rectangle(image, (20, 15), (230, 63), FRAME, 1)
    pieces = [text(image, "- - :", 28, 46), text(image, ": - -", 52, 46), text(image, "--", 130, 46)]
    found = find_widgets(image, pieces)
    assert [(w.role, w.text) for w in found] == [("input", "- - : : - - --")], found
    assert parted_field(found[0].text)


def test_a_drop_down_whose_one_letter_value_ocr_left_unread_is_still_a_drop_down():
    """A Qt T-shirt size list showing "S": OCR reads no line of one letter, and the frame with marks from left to
    right was taken for a button. A mark at the right end (the arrow) makes it a drop-down."""
    image = np.full((60, 400, 3), 240, np.uint8)
    cv2.rectangle(image, (20, 15), (360, 40), FRAME, 1)
    cv2.putText(image, "S", (28, 34), cv2.FONT_HERSHEY_SIMPLEX, 0.6, INK, 1, cv2.LINE_AA)
    cv2.fillPoly(image, [np.array([[338, 24], [350, 24], [344, 32]])], INK)
    assert [(w.role, w.text) for w in find_widgets(image, [])] == [("dropdown", "")]
    plain = np.full((60, 400, 3), 240, np.uint8)  # an empty field with its caret: still an input
    cv2.rectangle(plain, (20, 15), (360, 40), FRAME, 1)
    cv2.line(plain, (26, 19), (26, 36), INK, 1)
    assert [w.role for w in find_widgets(plain, [])] == ["input"]


def near(box: Box, expected: tuple[int, int, int, int], slack: int = 4) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(box, expected))


def test_unnamed_targets_are_located_by_kind_and_order(screen):
    """Through the real OCR grounder: the drawn words are read, the controls found around them."""
    image, _ = screen
    grounder = OcrGrounder()
    obs = Observation(image=image, monitor=Monitor(0, 0, 640, 520), cursor=None)
    assert near(grounder.locate(obs, "the text field").box, (20, 130, 301, 166))
    assert near(grounder.locate(obs, "the 2nd text field").box, (20, 185, 301, 221))
    assert grounder.locate(obs, "the list").role == "dropdown"
    assert grounder.locate(obs, "the button").text == "One"
    assert grounder.locate(obs, "the fourth text field") is None
    save = grounder.locate(obs, "Save")
    assert save.role == "button" and near(save.box, (440, 460, 601, 501))
    kinds = {(e.role, e.source) for e in grounder.parse(obs)}
    assert ("text", "ocr") in kinds and ("dropdown", "layout") in kinds


@pytest.mark.parametrize("scale", [1, 3])
def test_a_label_finds_its_field_and_check_box_at_any_text_size(scale):
    """The same form drawn at 100 % and at 300 %: the field and the check box beside each label are found at both
    sizes (reaches and size limits grow with the label's text)."""
    image = np.full((400 * scale, 900 * scale, 3), 240, np.uint8)
    s = scale
    field_label, toggle_label = Box(20 * s, 40 * s, 90 * s, 56 * s), Box(60 * s, 120 * s, 200 * s, 136 * s)
    cv2.rectangle(image, (110 * s, 36 * s), (400 * s, 60 * s), (90, 90, 90), max(1, s))  # the field, 24 px at 100 %
    cv2.rectangle(image, (36 * s, 120 * s), (52 * s, 136 * s), (90, 90, 90), max(1, s))  # the check box, 16 px
    field, toggle = find_field(image, field_label), find_toggle(image, toggle_label)
    near = 4 * s  # outlines are found a few pixels wide
    assert field is not None and abs(field.x0 - 110 * s) <= near and abs(field.y1 - 60 * s) <= near
    assert toggle is not None and abs(toggle.x0 - 36 * s) <= near and abs(toggle.x1 - 52 * s) <= near


def test_a_row_of_narrow_tabs_with_lone_digits_is_found_and_named():
    """Tabs narrower than they are tall, each holding one digit: the whole-frame read misses lone digits, so each
    unnamed button's marks are read alone and name it."""
    image = np.full((200, 400, 3), 250, np.uint8)
    cv2.rectangle(image, (10, 40), (330, 110), (225, 225, 225), -1)  # the tab bar around them
    for i, digit in enumerate("1234"):
        x = 20 + 44 * i
        cv2.rectangle(image, (x, 50), (x + 34, 100), (245, 245, 245), -1)
        cv2.rectangle(image, (x, 50), (x + 34, 100), (150, 150, 150), 1)
        cv2.putText(image, digit, (x + 9, 85), cv2.FONT_HERSHEY_SIMPLEX, 0.8, INK, 2, cv2.LINE_AA)
    tabs = find_widgets(image, [])
    assert [(w.role, w.text) for w in tabs] == [("button", "")] * 4  # found, though narrower than tall
    assert [ink_box(image, w.box) is not None for w in tabs] == [True] * 4
    obs = Observation(image=image, monitor=Monitor(0, 0, 400, 200), cursor=None)
    grounder = OcrGrounder()
    buttons = [e for e in grounder.parse(obs) if e.role == "button"]
    assert [e.text for e in buttons] == ["1", "2", "3", "4"]
    for target in ('the tab "3"', "3"):  # no text line says "3": the button named by its inside
        assert grounder.locate(obs, target).box == buttons[2].box
    assert ink_box(np.full((60, 60, 3), 200, np.uint8), Box(5, 5, 55, 55)) is None  # a plain inside: no marks


def test_a_close_button_whose_glyph_no_text_line_holds_is_found_by_the_name_its_inside_reads():
    image = np.full((200, 400, 3), 250, np.uint8)
    cv2.rectangle(image, (60, 60), (96, 96), (235, 235, 235), -1)
    cv2.rectangle(image, (60, 60), (96, 96), FRAME, 1)
    cv2.putText(image, "x", (71, 85), cv2.FONT_HERSHEY_SIMPLEX, 0.7, INK, 2, cv2.LINE_AA)
    cv2.putText(image, "Close it", (120, 85), cv2.FONT_HERSHEY_SIMPLEX, 0.7, INK, 2, cv2.LINE_AA)
    obs = Observation(image=image, monitor=Monitor(0, 0, 400, 200), cursor=None)
    grounder = OcrGrounder()
    # the glyph is read as a short text too (grounding.short_text), as a named button's words are
    assert [(e.role, e.text) for e in grounder.parse(obs)] == [("text", "Close it"), ("text", "x"), ("button", "x")]
    close = grounder.locate(obs, 'the "x"')
    assert close is not None and close.role == "button" and near(close.box, (60, 60, 97, 97))


def test_a_bordered_frame_of_wrapped_lines_is_a_text_area_and_a_list_or_a_coloured_panel_is_not():
    """A web page's textarea holds a paragraph wrapped at its right side, with a scroll bar: a field of several
    lines. An open list of short items in the same frame, and a yellow box of wrapped instructions with no border
    of its own, are not fields."""
    image = np.full((420, 700, 3), 255, np.uint8)
    cv2.rectangle(image, (20, 20), (260, 170), FRAME, 1)  # the textarea
    cv2.rectangle(image, (240, 22), (258, 168), (225, 225, 225), -1)  # its scroll bar
    paragraph = [text(image, words, 26, 44 + 26 * i) for i, words in
                 enumerate(("Tincidunt sed aliquam", "morbi sollicitudin", "volutpat, morbi", "pellentesque"))]
    cv2.rectangle(image, (300, 20), (540, 170), FRAME, 1)  # an open list
    items = [text(image, item, 306, 44 + 26 * i) for i, item in enumerate(("S", "M", "L", "XL"))]
    cv2.rectangle(image, (20, 200), (260, 300), (0, 255, 255), -1)  # a coloured panel on mixed ground
    cv2.rectangle(image, (0, 300), (700, 420), (90, 90, 90), -1)
    instructions = [text(image, words, 26, 224 + 26 * i) for i, words in
                    enumerate(("Copy the text in the", "textarea below, paste it", "into the box and press"))]
    found = find_widgets(image, paragraph + items + instructions)
    assert [(w.role, w.text) for w in found] == [("input", " ".join(line.text for line in paragraph))], found
    assert near(found[0].box, (20, 20, 261, 171)), found


def test_fields_so_close_that_their_edges_touch_are_each_found():
    """Two rounded web fields four pixels apart, and a button close under them: thickened, their edges join corner
    to corner into one outline, which is no frame; each still closes its own inside off."""
    image = np.full((220, 420, 3), 255, np.uint8)
    for top in (20, 50):
        cv2.rectangle(image, (130, top), (305, top + 26), (118, 118, 118), 1)
    cv2.rectangle(image, (10, 80), (195, 140), (118, 118, 118), 1)
    cv2.rectangle(image, (11, 81), (194, 139), (239, 239, 239), -1)
    button = text(image, "Submit", 70, 116)
    for x, y in ((130, 20), (305, 20), (130, 46), (305, 46), (130, 50), (305, 50), (130, 76), (305, 76)):
        image[y, x] = 255  # rounded corners
    cv2.line(image, (131, 77), (131, 79), (118, 118, 118))  # the antialiased corner that touches the next frame
    cv2.line(image, (131, 47), (131, 49), (118, 118, 118))
    found = find_widgets(image, [button])
    assert [w.role for w in found] == ["input", "input", "button"], found
    assert near(found[1].box, (130, 50, 306, 77)), found


def test_a_text_area_and_a_text_input_are_told_apart_by_their_lines():
    """'the 2nd text area' counts only fields of several lines, 'the text input' only those of one."""
    image = np.full((400, 500, 3), 255, np.uint8)
    lines = []
    for top in (10, 120):
        cv2.rectangle(image, (20, top), (260, top + 100), FRAME, 1)
        lines += [text(image, words, 26, top + 24 + 26 * i) for i, words in
                  enumerate((f"Paragraph {top} wrapped", "onward because of this", "and more"))]
    cv2.rectangle(image, (20, 240), (260, 275), FRAME, 1)
    assert [w.role for w in find_widgets(image, lines)] == ["input"] * 3
    grounder = OcrGrounder()  # the drawn words read by the real OCR, the fields found around them
    obs = Observation(image=image, monitor=Monitor(0, 0, 500, 400))
    top = {description: grounder.locate(obs, description).box.y0 // 10 * 10 + 10 for description in
           ("the 2nd text area", "the textarea", "the text input", "the textbox", "the second field")}
    assert top == {"the 2nd text area": 120, "the textarea": 10, "the text input": 240, "the textbox": 240,
                   "the second field": 120}  # no kind of lines said: every field counts


def test_a_small_text_area_is_found_by_its_sentence_cut_off_at_its_bottom():
    """MiniWoB's copy-paste-2 (never collected): text areas two lines tall, whose second line the frame cuts off
    (it scrolls) and whose columns wrap "Leo convallis." early. A line that goes on in lower case is a sentence; a
    list cut off the same way, whose items start anew, is no text area."""
    image = np.full((200, 400, 3), 255, np.uint8)
    cv2.rectangle(image, (20, 20), (280, 80), FRAME, 1)
    sentence = [text(image, "Leo", 26, 44), TextLine(Box(26, 52, 120, 81), "convallis.", 0.99)]
    cv2.putText(image, "convallis.", (26, 76), cv2.FONT_HERSHEY_SIMPLEX, 0.6, INK, 1, cv2.LINE_AA)
    cv2.rectangle(image, (20, 110), (280, 170), FRAME, 1)
    items = [text(image, "Small", 26, 134), TextLine(Box(26, 142, 120, 171), "Medium", 0.99)]
    cv2.putText(image, "Medium", (26, 166), cv2.FONT_HERSHEY_SIMPLEX, 0.6, INK, 1, cv2.LINE_AA)
    found = [(w.role, w.text) for w in find_widgets(image, sentence + items)]
    assert ("input", "Leo convallis.") in found and not any(text.startswith("Small") for _, text in found), found


def test_a_block_of_selected_text_is_no_text_area():
    """Text selected on a page (white on blue, on the page's yellow): the yellow around the blue is one colour on
    all four sides, like a border, but no line - the colour runs on outwards."""
    image = np.full((200, 400, 3), (0, 255, 255), np.uint8)
    cv2.rectangle(image, (20, 20), (300, 70), (200, 90, 40), -1)
    lines = [text(image, "Find the email by Juliane and", 24, 40, (255, 255, 255)),
             TextLine(Box(24, 48, 250, 71), "click the trash icon to delete it.", 0.99)]
    cv2.putText(image, "click the trash icon to delete it.", (24, 66), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                (255, 255, 255), 1, cv2.LINE_AA)
    assert [w.role for w in find_widgets(image, lines)] == []
