"""The bundle's entry point: the `deskpilot` command (and the app), as the installed script runs it."""

from deskpilot.app.cli import main

if __name__ == "__main__":
    main()
