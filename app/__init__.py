"""The user-facing programs: the `deskpilot` command line (and, later, the PySide6 desktop app)."""
