"""Live environments with their own rewards, to evaluate an agent and collect episodes: the MiniWoB++ pack
(`miniwob/`: the harness, the page driver, the task lists and the rule pack the harness turns on), the desktop-apps
suite (`desktop`), grounding and detector scores on real MiniWoB screens (`grounding`, `detector_miniwob`), and
collection, rollouts, branches and rounds on top of them."""
