"""`playground --install-desktop-entry` / `--uninstall-desktop-entry`: the launcher, for this user.

Install writes, under ``$XDG_DATA_HOME`` (default ``~/.local/share``, the XDG Base Directory
spec): ``applications/playground.desktop`` (its ``Exec`` the installed ``playground`` command's
absolute path with ``%f``, so a double-clicked capture opens in the window), the icon in
``icons/hicolor/<size>/apps/``, and ``mime/packages/playground.xml`` (the capture format and
``text/event-stream``). Every file is written atomically. A manifest in
``playground/desktop-entry.json`` lists what was written and which folders were made, so
uninstall removes exactly those, and nothing a user or another program put beside them. The
desktop's caches are refreshed with ``update-desktop-database`` / ``update-mime-database`` when
those exist; without them the files are still right, and the desktop rereads them later.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from playground.assets import ICON_NAME, icon_png, icon_png_sizes, icon_svg, resource

__all__ = ["data_home", "exec_command", "install", "main", "uninstall"]

DESKTOP_FILE = f"{ICON_NAME}.desktop"  # the name Qt reports (QGuiApplication.desktopFileName)
MIME_FILE = f"{ICON_NAME}.xml"  # installed name; resources/ holds it as playground-mime.xml
MIME_SOURCE = f"{ICON_NAME}-mime.xml"
MANIFEST = Path("playground") / "desktop-entry.json"
# Desktop Entry spec, "The Exec key": an argument holding one of these must be quoted.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home() -> Path:
    """``$XDG_DATA_HOME`` when it is an absolute path (the spec ignores a relative one)."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def _quote(argument: str) -> str:
    if not argument or _RESERVED & set(argument):
        inner = "".join("\\" + c if c in '"`$\\' else c for c in argument)
        argument = f'"{inner}"'
    # The value is a desktop-entry string too, where a backslash is itself escaped.
    return argument.replace("\\", "\\\\")


def exec_command() -> list[str]:
    """The command a launcher runs: the ``playground`` script of this install, by absolute path.

    The script that is running (pipx's, a venv's) first; else the one pip put beside this
    interpreter (its own or the user scheme's scripts folder); else this interpreter with
    ``-m playground``. Never a ``playground`` found on PATH: that may be another install.
    """
    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if running is not None and running.name == "playground" and running.is_file():
        return [str(running.absolute())]
    schemes = [sysconfig.get_default_scheme(), f"{os.name}_user"]
    for scheme in schemes:
        try:
            folder = sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        script = Path(folder) / "playground"
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "playground"]


def _entry_text(command: Sequence[str]) -> str:
    lines = []
    for line in resource(DESKTOP_FILE).read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(_quote(a) for a in command) + " %f"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(temporary, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _make_dirs(folder: Path, made: list[str]) -> None:
    """``mkdir -p``, noting each folder it made (uninstall removes those it finds empty)."""
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            break
        missing.append(parent)
    for path in reversed(missing):
        path.mkdir()
        made.append(str(path))


def _files(home: Path, command: Sequence[str]) -> dict[Path, bytes]:
    icons = home / "icons" / "hicolor"
    out = {
        home / "applications" / DESKTOP_FILE: _entry_text(command).encode(),
        home / "mime" / "packages" / MIME_FILE: resource(MIME_SOURCE).read_bytes(),
        icons / "scalable" / "apps" / f"{ICON_NAME}.svg": icon_svg().read_bytes(),
    }
    for size in icon_png_sizes():
        out[icons / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"] = icon_png(size).read_bytes()
    return out


def _read_manifest(home: Path) -> dict[str, list[str]]:
    try:
        data = json.loads((home / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: [str(x) for x in v] for k, v in data.items() if isinstance(v, list)}


def _refresh(home: Path) -> list[str]:
    """Run the desktop's cache tools where they are installed; what went wrong, as notes."""
    notes = []
    for tool, folder in (
        ("update-desktop-database", home / "applications"),
        ("update-mime-database", home / "mime"),
    ):
        found = shutil.which(tool)
        if found is None or not folder.is_dir():
            continue
        try:
            result = subprocess.run(
                [found, str(folder)], capture_output=True, text=True, timeout=60, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            notes.append(f"{tool} did not run ({exc})")
            continue
        if result.returncode != 0:
            notes.append(f"{tool} failed: {(result.stderr.strip().splitlines() or ['?'])[-1]}")
    return notes


# What update-mime-database and update-desktop-database write: removed on uninstall only when
# install made the folder they sit in and nothing else is left there to describe.
_MIME_GENERATED = (
    *("aliases", "generic-icons", "globs", "globs2", "icons", "magic", "mime.cache"),
    *("subclasses", "treemagic", "types", "version", "XMLnamespaces"),
)


def install(home: Path | None = None) -> list[Path]:
    """Write the entry, icons and MIME types under ``home``; the files written."""
    home = home or data_home()
    previous = _read_manifest(home)
    made: list[str] = list(previous.get("folders", []))
    files = _files(home, exec_command())
    for path, data in files.items():
        _make_dirs(path.parent, made)
        _write_atomically(path, data)
    manifest_path = home / MANIFEST
    _make_dirs(manifest_path.parent, made)
    written = sorted({*previous.get("files", []), *(str(p) for p in files)})
    manifest = {"files": written, "folders": made}
    _write_atomically(manifest_path, (json.dumps(manifest, indent=1) + "\n").encode())
    for note in _refresh(home):
        print(f"playground: {note}", file=sys.stderr)
    return list(files)


def _remove_generated(home: Path, made: set[str]) -> None:
    mime = home / "mime"
    packages = mime / "packages"
    if str(mime) in made and not any(packages.iterdir() if packages.is_dir() else ()):
        for name in _MIME_GENERATED:
            (mime / name).unlink(missing_ok=True)
        for media in mime.iterdir():  # the per-type XML the tool writes (application/, text/)
            if media.is_dir() and media.name != "packages":
                for item in media.glob("*.xml"):
                    item.unlink()
                _rmdir_if_empty(media)
    applications = home / "applications"
    if str(applications) in made and not any(applications.glob("*.desktop")):
        (applications / "mimeinfo.cache").unlink(missing_ok=True)


def _rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty: something else lives there


def uninstall(home: Path | None = None) -> list[Path]:
    """Remove what ``install`` wrote under ``home`` (per its manifest); the files removed."""
    home = home or data_home()
    manifest = _read_manifest(home)
    removed = []
    for name in manifest.get("files", []):
        path = Path(name)
        if path.is_file():
            path.unlink()
            removed.append(path)
    (home / MANIFEST).unlink(missing_ok=True)
    made = set(manifest.get("folders", []))
    for note in _refresh(home):
        print(f"playground: {note}", file=sys.stderr)
    _remove_generated(home, made)
    for folder in sorted(made, key=len, reverse=True):  # the deepest first
        _rmdir_if_empty(Path(folder))
    return removed


def main(argv: Sequence[str]) -> int:
    """``--install-desktop-entry`` or ``--uninstall-desktop-entry``: 0 when done, 1 on an error."""
    action = argv[0] if argv else ""
    try:
        if action == "--install-desktop-entry":
            written = install()
            print(f"Installed the launcher entry: {written[0]}")
            print(f"It runs: {' '.join(exec_command())}")
        else:
            removed = uninstall()
            if removed:
                print(f"Removed the launcher entry ({len(removed)} files).")
            else:
                print("No launcher entry installed by playground was found.")
    except OSError as exc:
        print(f"playground: {exc.strerror or exc} ({exc.filename or data_home()})", file=sys.stderr)
        return 1
    return 0
