"""Which MiniWoB++ tasks deskpilot collects training data on, and which it keeps out of all training data to
measure how a trained planner does on tasks it never saw. All of them can be done from the screen's text and
elements (no drawing, dragging or judging colours)."""

from __future__ import annotations

# The 19 development tasks: `eval miniwob` runs these unless told others.
DEFAULT_TASKS = ("click-button", "click-button-sequence", "click-link", "click-dialog", "click-dialog-2", "click-test",
                 "click-test-2", "click-checkboxes", "click-option", "click-tab", "click-tab-2", "choose-list",
                 "enter-text", "enter-text-2", "enter-password", "focus-text", "focus-text-2", "login-user",
                 "click-collapsible")

# The 19 tasks of `eval miniwob`, and neighbours with other wordings, layouts and more steps.
COLLECT_TASKS: tuple[str, ...] = DEFAULT_TASKS + (
    "click-checkboxes-large", "click-checkboxes-transfer", "click-collapsible-2", "click-tab-2-easy",
    "click-tab-2-medium", "click-test-transfer", "click-widget", "enter-text-dynamic", "login-user-popup",
    "multi-layouts", "multi-orderings", "use-autocomplete", "simple-arithmetic", "unicode-test", "navigate-tree",
    "search-engine", "social-media", "click-scroll-list", "enter-date")

# Never collected by default: a trained planner is measured on these beside the offline planner.
HELD_OUT_TASKS: tuple[str, ...] = (
    "click-tab-2-hard", "click-checkboxes-soft", "click-collapsible-2-nodelay", "use-autocomplete-nodelay",
    "simple-algebra", "text-transform", "odd-or-even", "email-inbox", "form-sequence", "enter-time", "find-word",
    "read-table")
