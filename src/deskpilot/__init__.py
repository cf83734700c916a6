"""deskpilot: a local, trainable desktop GUI agent. One subpackage per part (ARCHITECTURE in docs/architecture.md):
core <- grounding, planner, recorder <- training <- evaluation <- app; resources holds the package data."""
