"""Synthetic GUI screens for the detector: random Qt windows rendered offscreen (`qt`) and random web pages rendered
in headless Chromium (`html`), from shared words and colour themes (`words`)."""
