# Sourced by the installers: `apt_missing PACKAGE...` installs, with apt, those of the Debian packages not yet
# installed (through sudo when not root), and says which.
apt_missing() {
  local missing=() package sudo=""
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "installing system packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
