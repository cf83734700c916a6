"""The synthetic form in each toolkit, as standalone scripts (the GTK one runs under Debian's own Python, which has
PyGObject): `SCRIPT spec.json state.json` shows the form at 60,40 and writes the state after every change."""
