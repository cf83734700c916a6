#!/usr/bin/env bash
# Puts deskpilot into the user's application menu: the .desktop entry, the icon and the AppStream metadata, for
# the bundle (dist/deskpilot/, linked as ~/.local/bin/deskpilot) or, without a bundle, a deskpilot already on PATH
# (pipx, pip --user). Run: bash installers/install-desktop.sh [--uninstall]
set -euo pipefail
cd "$(dirname "$0")/.."
data="${XDG_DATA_HOME:-$HOME/.local/share}"
bin="$HOME/.local/bin"
targets=("$data/applications/io.github.deskpilot.desktop" "$data/icons/hicolor/scalable/apps/io.github.deskpilot.svg"
         "$data/metainfo/io.github.deskpilot.metainfo.xml")
if [[ "${1:-}" == "--uninstall" ]]; then
  rm -f "${targets[@]}"
  [[ -L "$bin/deskpilot" ]] && rm -f "$bin/deskpilot"
  echo "deskpilot removed from the menu"
  exit 0
fi
if [[ -x dist/deskpilot/deskpilot ]]; then
  mkdir -p "$bin"
  ln -sfn "$(pwd)/dist/deskpilot/deskpilot" "$bin/deskpilot"
  command="$bin/deskpilot"
elif command -v deskpilot >/dev/null; then
  command="$(command -v deskpilot)"
else
  echo "no deskpilot to put in the menu: build the bundle (bash installers/build.sh) or pipx install ." >&2
  exit 1
fi
mkdir -p "$(dirname "${targets[0]}")" "$(dirname "${targets[1]}")" "$(dirname "${targets[2]}")"
sed "s|^Exec=deskpilot app|Exec=$command app|" installers/deskpilot.desktop > "${targets[0]}"
cp src/deskpilot/resources/deskpilot.svg "${targets[1]}"
cp installers/io.github.deskpilot.metainfo.xml "${targets[2]}"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
echo "deskpilot is in the application menu (Exec=$command app)"
