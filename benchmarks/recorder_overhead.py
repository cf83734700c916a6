"""What recording costs: extra input latency the listeners add, the recorder's CPU use idle and at 10 input
events per second, and disk bytes per recorded step. Runs `deskpilot record` as a real process on a 1280x800
screen with the demo app; input is injected with XTest (pyautogui) and timed by a probe listener.

    python benchmarks/recorder_overhead.py [--seconds N]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from deskpilot.resources.demo import prepare_screen
from deskpilot.core.episode import list_episodes, read_episode

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def key_latencies(count: int) -> list[float]:
    """ms from injecting a key (XTest) to a pynput listener seeing it."""
    import pyautogui
    from pynput import keyboard

    seen: list[float] = []
    arrived = threading.Event()

    def on_press(key: object) -> None:
        if getattr(key, "name", "") == "shift":
            seen.append(time.perf_counter())
            arrived.set()

    probe = keyboard.Listener(on_press=on_press)
    probe.start()
    probe.wait()
    samples = []
    for _ in range(count):
        arrived.clear()
        sent = time.perf_counter()
        pyautogui.keyDown("shift", _pause=False)
        pyautogui.keyUp("shift", _pause=False)
        if arrived.wait(2):
            samples.append((seen[-1] - sent) * 1000)
        time.sleep(0.02)
    from deskpilot.core.hotkeys import stop_pynput_listener

    stop_pynput_listener(probe)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        _, demo = prepare_screen(stack, demo=True, state_file=Path(tmp) / "state.json")
        import pyautogui

        pyautogui.PAUSE = 0
        baseline = statistics.median(key_latencies(60))
        recorder = subprocess.Popen([sys.executable, "-m", "deskpilot.app", "record", "--out", f"{tmp}/rec"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not list_episodes(f"{tmp}/rec"):
            time.sleep(0.05)
        time.sleep(2.0)
        recording = statistics.median(key_latencies(60))
        print(f"input latency (key, XTest -> listener)  median {recording:6.2f} ms while recording, "
              f"{baseline:6.2f} ms without (+{recording - baseline:.2f} ms)")
        start = cpu_seconds(recorder.pid)
        time.sleep(args.seconds)
        idle = (cpu_seconds(recorder.pid) - start) / args.seconds * 100
        print(f"recorder CPU idle                        {idle:6.1f} %")
        start, events, deadline = cpu_seconds(recorder.pid), 0, time.monotonic() + args.seconds
        while time.monotonic() < deadline:  # 10 events/s: clicks on the file list, and typed words
            if events % 2 == 0:
                pyautogui.click(700, 120 + (events % 20) * 14)
            else:
                pyautogui.write("ab", interval=0)
            events += 1
            time.sleep(0.1)
        busy = (cpu_seconds(recorder.pid) - start) / args.seconds * 100
        print(f"recorder CPU at 10 events/s              {busy:6.1f} %")
        recorder.send_signal(signal.SIGTERM)
        recorder.wait(timeout=60)
        episode = read_episode(list_episodes(f"{tmp}/rec")[0])
        size = sum(p.stat().st_size for p in episode.directory.rglob("*") if p.is_file())
        frames = len(list((episode.directory / "frames").glob("*.png")))
        print(f"disk per recorded step                   {size / max(1, len(episode.steps)) / 1024:6.1f} KiB "
              f"({len(episode.steps)} steps, {frames} distinct frames, {size / 1024:.0f} KiB in all)")
        del demo


if __name__ == "__main__":
    main()
