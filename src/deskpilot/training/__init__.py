"""Training from episodes: step verification (verify, judge), training samples in the planner's own prompt format
(samples, data), SFT / KTO / GRPO on TRL with peft (config, trainers, rewards, metrics), offline step accuracy
(evaluate); the UI-element detector has its own sub-package, `training.detector`."""
