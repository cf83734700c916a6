"""The user-facing programs: the `deskpilot` command line and the PySide6 desktop app (Run, Record, Episodes, Train,
Settings); they compose every other part and nothing imports them."""
