"""Training from episodes: training samples in the planner's own prompt format (samples, data), SFT / KTO / GRPO on
TRL with peft (config, trainers, rewards, metrics), offline step accuracy (evaluate); the UI-element detector and
the text recogniser have their own sub-packages. Step verification is `deskpilot.labelling`."""
