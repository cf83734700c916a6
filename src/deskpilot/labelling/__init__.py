"""Step verification: every way deskpilot labels a step good, bad or unknown, behind one `Verifier` protocol and a
registry of them by name (`registry`): from the frames (`heuristic`), the environment's reward (`env`), both as
collection combines them (`env+heuristic`), a vision-language judge (`judge`), the goal check made before "done"
(`goal`), a person (`human`); the environment-playing ones (`rollout`, `branch`) register from
`deskpilot.evaluation.labellers`. `deskpilot label` and `deskpilot improve` choose by name."""
