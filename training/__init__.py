"""Training from episodes: step verification (labelling each step good/bad), and (to come) dataset builders and
TRL trainers."""
