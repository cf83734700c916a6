"""Rules written for MiniWoB++ utterances, turned on by the harness (`harness.run_episode`) and nowhere else. Each
names the task whose sentence it serves; tests/test_phrasings.py pins each one."""

from __future__ import annotations

import re

from deskpilot.core.rule_packs import RulePack

MINIWOB = RulePack(
    name="miniwob",
    # "the 2nd input textbox" (focus-text-2); "Select the option" (click-option, whose options are radio buttons)
    role_words={"input textbox": "input", "option": "radio"},
    # 'Click on a "checkbox" widget' (click-widget): a quoted "text" is a text field, as in HTML's input type; a text
    # area, drawn with a grip in its corner, may be read as a dropdown
    quoted_kinds={"checkbox": ("checkbox",), "check box": ("checkbox",), "radio": ("radio",),
                  "radio button": ("radio",), "button": ("button",), "link": ("link",), "tab": ("tab",),
                  "text": ("input",), "textbox": ("input",), "text box": ("input",), "text field": ("input",),
                  "input": ("input",), "textarea": ("input", "dropdown"), "text area": ("input", "dropdown"),
                  "dropdown": ("dropdown",), "select": ("dropdown",)},
    # "Switch between the tabs to find and click on the link "x"." (click-tab-2)
    tab_search=re.compile(r"^(?:switch|go|look|search|browse|flip)\s+(?:between|through|among|across|in)?\s*"
                          r"(?:the\s+)?(?P<group>tabs?)(?:\s+(?:to\s+)?(?:find|look\s+for|locate))?$", re.I),
    # "Select nothing and click Submit." (click-checkboxes)
    nothing=re.compile(r"^(?:select|choose|pick|check|tick)\s+(?:nothing|none|no\s+\w+)$", re.I),
    # 'Enter an item that starts with "Au"' (use-autocomplete), 'Check the 3rd radio button and enter ...'
    # (form-sequence-2): the page scores the task only at its Submit, which the sentence does not always ask for
    closing_buttons=("Submit",),
)
