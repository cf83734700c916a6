"""The MiniWoB++ pack: the harness that plays MiniWoB++ pages in Chromium from pixels (`harness`, `page`), the task
lists (`tasks`), and every rule that serves MiniWoB's pages or sentences (`rules`), which the harness turns on
through `deskpilot.core.rule_packs` — nothing outside this package names a MiniWoB task or sentence."""
