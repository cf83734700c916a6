"""Recording demonstrations: raw input capture (pynput + mss), merging raw events into clean actions, privacy
scrubbing, and replaying recordings with targets re-grounded on the live screen."""
