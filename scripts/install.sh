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
# Debian and Ubuntu ship their python3 without pip (python3-pip); other Pythons bring their own.
python3 -m pip --version >/dev/null 2>&1 || sys_pkgs+=(python3-pip)
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

# Where pip puts the package so that the `python3` of README's next command imports it. This
# script cannot change the calling shell's PATH, so a virtual environment made here would not be
# the `python3` the user runs next; the package must land on that interpreter's own sys.path.
#  - in an active virtual environment, or a Python pip may install into (pyenv, python.org):
#    the environment itself, as always;
#  - on an interpreter marked externally managed (PEP 668: Debian 12's and Ubuntu 24.04's
#    /usr/bin/python3, uv's managed Pythons), where a bare `pip install` stops with
#    "externally-managed-environment": the user's own site-packages (~/.local, or
#    $PYTHONUSERBASE), which that interpreter reads and the system package manager never
#    writes. pip asks for --break-system-packages there too, because the user's packages shadow
#    the distribution's for this user's Python programs; nothing under /usr is changed.
target=$(python3 - <<'PY'
import os, site, sys, sysconfig
in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
if in_venv or not os.path.isfile(marker):
    print("environment")
elif not site.ENABLE_USER_SITE:
    print("no-user-site")
else:
    print("user")
PY
)
pip_args=(--quiet --disable-pip-version-check)
case "$target" in
  user)
    echo "$(command -v python3) is externally managed (PEP 668): installing into $(python3 -m site --user-site)"
    # pip would warn once per console script that ~/.local/bin is not on PATH; say it once.
    pip_args+=(--user --break-system-packages --no-warn-script-location)
    user_bin="$(python3 -m site --user-base)/bin"
    case ":$PATH:" in
      *":$user_bin:"*) ;;
      *) echo "The playground command goes to $user_bin (not on PATH yet; python3 -m playground works)" ;;
    esac ;;
  no-user-site)
    echo "$(command -v python3) is externally managed and its user site-packages are off" \
         "(PYTHONNOUSERSITE or -s): run this from a virtual environment instead:" >&2
    echo "  python3 -m venv .venv && . .venv/bin/activate && bash scripts/install.sh ${1:-}" >&2
    exit 1 ;;
esac
python3 -m pip install "${pip_args[@]}" -e ".${extra}"
