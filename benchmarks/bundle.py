"""The self-contained bundle (dist/deskpilot/, made by `bash installers/build.sh`): its size, how fast its app window
appears (median of repeats, and the ratio to starting the app from the source checkout in the same run), and an
end-to-end `run` on the demo app with no display (the bundle starts its own Xvfb and the demo app). One line per
figure.

    python benchmarks/bundle.py [--repeats 3] [--bundle dist/deskpilot]

Starts its own Xvfb for the window timings.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deskpilot.core.display import VirtualDisplay

ROOT = Path(__file__).resolve().parent.parent
TASK = 'type "Ada Lovelace" into Full name then click "Save"'


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def window_seconds(command: list[str], env: dict[str, str], timeout: float = 60.0) -> float:
    """Seconds from starting `command` until a window named "deskpilot" is mapped on the display."""
    started = time.perf_counter()
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        while time.perf_counter() - started < timeout:
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^deskpilot$"], env=env,
                                   capture_output=True, text=True)
            if found.stdout.strip():
                return time.perf_counter() - started
            if process.poll() is not None:
                log.seek(0)
                said = log.read().decode(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError(f"{command[0]} exited with {process.returncode} before showing its window: {said}")
            time.sleep(0.02)
        raise TimeoutError(f"no deskpilot window after {timeout:g} s")
    finally:
        process.terminate()
        process.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "deskpilot")
    args = parser.parse_args()
    program = args.bundle / "deskpilot"
    if not program.is_file():
        sys.exit(f"no bundle at {args.bundle}: build it with `bash installers/build.sh`")
    print(f"bundle size: {folder_mb(args.bundle):.0f} MB ({args.bundle})")

    with tempfile.TemporaryDirectory() as home, VirtualDisplay(1280, 800) as display:
        env = {**display.environ(), "HOME": home, "DESKPILOT_CONFIG": str(Path(home) / "config.toml"),
               "DESKPILOT_EPISODES_DIR": str(Path(home) / "episodes")}
        (Path(home) / "config.toml").write_text("")  # not a first start: no machine check on opening
        bundled = [window_seconds([str(program), "app"], env) for _ in range(args.repeats)]
        source = [window_seconds([sys.executable, "-m", "deskpilot.app", "app"], env) for _ in range(args.repeats)]
        print(f"app window from the bundle: {statistics.median(bundled):.2f} s median of {args.repeats} "
              f"= {statistics.median(bundled) / statistics.median(source):.2f}x from the source checkout "
              f"({statistics.median(source):.2f} s)")

    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env.update({"HOME": home, "DESKPILOT_CONFIG": str(Path(home) / "config.toml")})
        started = time.perf_counter()
        result = subprocess.run([str(program), "run", TASK, "--episodes-dir", str(Path(home) / "episodes")],
                                env=env, capture_output=True, text=True, timeout=300)
        took = time.perf_counter() - started
        saved = '"full_name": "Ada Lovelace"' in result.stdout and '"saved": 1' in result.stdout
        verdict = "success" if result.returncode == 0 and saved else "FAILED"
        print(f"bundle run on the demo app without a display: {verdict} in {took:.1f} s (own Xvfb, demo app, OCR, "
              "detector, offline planner)")
        if result.returncode != 0 or not saved:
            print(result.stdout[-2000:] + result.stderr[-2000:])
            sys.exit(1)


if __name__ == "__main__":
    main()
