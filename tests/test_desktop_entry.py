"""The launcher entry: install and uninstall it in a temporary XDG_DATA_HOME, then validate it."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from playground import desktop_entry
from playground.assets import icon_png_sizes, resource


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _entry(home: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(home / "applications" / "playground.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def _run(home: Path, flag: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home))
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "playground", flag],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def test_install_writes_the_entry_icons_and_mime_types(home: Path) -> None:
    written = desktop_entry.install()
    entry = _entry(home)
    assert entry["Type"] == "Application" and entry["Icon"] == "playground"
    command = desktop_entry.exec_command()
    assert entry["Exec"] == " ".join(command) + " %f"
    assert Path(command[0]).is_absolute() and Path(command[0]).is_file()
    assert entry["MimeType"] == "application/x-playground-capture;text/event-stream;"
    icons = home / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / "playground.svg").is_file()
    assert icon_png_sizes() and all(
        (icons / f"{n}x{n}" / "apps" / "playground.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        for n in icon_png_sizes()
    )
    mime = (home / "mime" / "packages" / "playground.xml").read_text()
    assert 'type="application/x-playground-capture"' in mime and "*.capture.jsonl" in mime
    assert 'type="text/event-stream"' in mime
    manifest = json.loads((home / "playground" / "desktop-entry.json").read_text())
    assert sorted(manifest["files"]) == sorted(str(p) for p in written)
    assert not list(home.rglob("*.tmp*"))  # written through temporary files, none left


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate (desktop-file-utils) is not installed; scripts/install.sh "
    "--test installs it",
)
def test_the_installed_entry_validates(home: Path) -> None:
    desktop_entry.install()
    installed = home / "applications" / "playground.desktop"
    for path in (installed, resource("playground.desktop")):
        result = subprocess.run(
            ["desktop-file-validate", str(path)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_the_mime_database_knows_the_capture_format(home: Path) -> None:
    if shutil.which("update-mime-database") is None:
        pytest.skip("update-mime-database (shared-mime-info) is not installed")
    desktop_entry.install()
    globs = (home / "mime" / "globs2").read_text()
    assert ":application/x-playground-capture:*.capture.jsonl" in globs
    assert ":text/event-stream:*.sse" in globs
    # The magic is the first bytes the capture writer puts in every capture.
    import xml.etree.ElementTree as ET

    from playground.assets import sample_capture
    from playground.protocol.capture import encode_line, header_record

    tree = ET.parse(home / "mime" / "packages" / "playground.xml")
    (match,) = tree.iter("{http://www.freedesktop.org/standards/shared-mime-info}match")
    magic = match.get("value", "").encode()
    assert magic and match.get("offset") == "0"
    written = encode_line(header_record("chat", {"method": "POST"}, "2026-01-01T00:00:00Z"))
    assert written.startswith(magic) and sample_capture("chat").read_bytes().startswith(magic)
    if shutil.which("update-desktop-database") is not None:
        cache = (home / "applications" / "mimeinfo.cache").read_text()
        assert "application/x-playground-capture=playground.desktop;" in cache


@pytest.mark.parametrize("tools", ["present", "absent"])
def test_uninstall_leaves_exactly_what_was_there(home: Path, tools: str) -> None:
    # Files of the user's own and of other programs, beside where the entry goes.
    mine = {
        "applications/other.desktop": b"[Desktop Entry]\nType=Application\nName=Other\nExec=true\n",
        "icons/hicolor/48x48/apps/other.png": b"not ours",
        "playground/history/index.json": b"{}",
    }
    for name, data in mine.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(data)
    before = _tree(home)
    # Without the cache tools (a minimal system): both commands still succeed.
    empty = home.parent / "no-tools"
    empty.mkdir()
    path = None if tools == "present" else str(empty)
    installed = _run(home, "--install-desktop-entry", path)
    assert installed.returncode == 0, installed.stderr
    assert "playground.desktop" in installed.stdout
    assert (home / "applications" / "playground.desktop").is_file()
    again = _run(home, "--install-desktop-entry", path)  # installing twice is harmless
    assert again.returncode == 0, again.stderr
    removed = _run(home, "--uninstall-desktop-entry", path)
    assert removed.returncode == 0, removed.stderr
    after = _tree(home)
    if tools == "present" and shutil.which("update-desktop-database"):
        # The tool's cache of the folder we share with another entry is the user's, kept
        # current: it no longer names ours.
        cache = after.pop("applications/mimeinfo.cache", b"")
        assert b"playground.desktop" not in cache
    assert after == before
    folders = {str(Path(n).parent) for n in mine}
    folders |= {"icons", "icons/hicolor", "icons/hicolor/48x48", "playground"}
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir()) == sorted(
        folders
    )


def test_install_then_uninstall_in_an_empty_folder_leaves_it_empty(home: Path) -> None:
    desktop_entry.install()
    assert len(_tree(home)) > 10
    removed = desktop_entry.uninstall()
    assert removed and list(home.iterdir()) == []
    assert desktop_entry.uninstall() == []  # nothing left to remove: still fine


def test_exec_quotes_a_path_with_spaces(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = home / "my tools" / "playground"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    desktop_entry.install()
    assert _entry(home)["Exec"] == f'"{script}" %f'
