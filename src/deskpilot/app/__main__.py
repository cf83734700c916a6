"""`python -m deskpilot.app` is the `deskpilot` command."""

from deskpilot.app.cli import main

main()
