"""Live environments with their own rewards, to evaluate an agent and collect episodes: MiniWoB++ from pixels
(`miniwob_page` drives the page, `miniwob` scores the agent), grounding and detector scores on real MiniWoB
screens (`grounding`, `detector_miniwob`)."""
