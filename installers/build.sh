#!/usr/bin/env bash
# Builds the self-contained one-folder bundle dist/deskpilot/ (no Python needed on the target) with PyInstaller,
# from the .venv that installers/setup.sh makes. Run: bash installers/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x .venv/bin/python ]] || bash installers/setup.sh
.venv/bin/python -m pip install -q -c installers/constraints.txt -e ".[bundle]"
# The bundle carries a small OpenCV built from source (once, cached under build/opencv/) instead of the wheel's.
DESKPILOT_BUNDLE_OPENCV="$PWD/$(bash installers/build_opencv.sh)"
export DESKPILOT_BUNDLE_OPENCV
rm -rf build/pyinstaller dist/deskpilot
build=(.venv/bin/pyinstaller --noconfirm --log-level WARN --workpath build/pyinstaller --distpath dist
       installers/deskpilot.spec)
# pynput picks its backend when imported, which needs an X display: give the build a virtual one if there is none.
if [[ -z "${DISPLAY:-}" ]]; then xvfb-run -a "${build[@]}"; else "${build[@]}"; fi
du -sh dist/deskpilot
echo "bundle: dist/deskpilot/deskpilot (install the menu entry: bash installers/install-desktop.sh)"
