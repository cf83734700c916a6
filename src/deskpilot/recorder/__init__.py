"""Recording demonstrations: raw input capture (pynput + mss) kept as events.jsonl, merging raw events into clean
actions (and merging them again later), secret scrubbing, export to datasets, and replaying recordings with
targets re-grounded on the live screen."""
