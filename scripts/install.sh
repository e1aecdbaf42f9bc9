#!/usr/bin/env bash
# Installs what the playground needs on a fresh Debian/Ubuntu machine: the few system libraries
# Qt needs to start (QtMultimedia needs libpulse0 even with no audio device), then the package.
#   bash scripts/install.sh          the program
#   bash scripts/install.sh --test   the program and what its tests need (with node and npm)
set -euo pipefail
cd "$(dirname "$0")/.."

extra=""
[ "${1:-}" = "--test" ] && extra="[test]"

# Qt's xcb/offscreen platforms and QtMultimedia load these at run time; pip cannot provide them.
sys_pkgs=(libpulse0 libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
          libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
          libxcb-randr0 libxcb-render-util0 libxcb-image0 fonts-dejavu-core)
# The launcher entry's tests validate it (desktop-file-validate) and build a MIME database with
# the cache tools a desktop runs (update-desktop-database, update-mime-database).
[ "${1:-}" = "--test" ] && sys_pkgs+=(desktop-file-utils shared-mime-info)
# The SSE parser is compiled with mypyc when the package installs (setup.py): that takes a C
# compiler and Python's headers (python3-dev is only needed for the system's own Python).
command -v cc >/dev/null 2>&1 || sys_pkgs+=(gcc libc6-dev)
python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  sys_pkgs+=(python3-dev)
# The tests run every exported Node snippet with node, npm installing the SDKs they import.
if [ -n "$extra" ]; then
  command -v node >/dev/null 2>&1 || sys_pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || sys_pkgs+=(npm)
fi
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${sys_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
  echo "Installing system libraries: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install --quiet --disable-pip-version-check -e ".${extra}"
