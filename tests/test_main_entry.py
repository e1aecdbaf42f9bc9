"""`playground --version` and the flag-like commands of the entry point (playground.__main__)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from playground.__main__ import main, version

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_installed_one_from_pyproject(capsys: pytest.CaptureFixture[str]) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version() == declared  # one source: pyproject.toml, through the installed metadata
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"playground {declared}\n"


def test_the_desktop_entry_flags_reach_their_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    assert main(["--uninstall-desktop-entry"]) == 0
    assert "No launcher entry" in capsys.readouterr().out
    assert main(["--install-desktop-entry"]) == 0
    assert (tmp_path / "applications" / "playground.desktop").is_file()
    assert main(["--uninstall-desktop-entry"]) == 0
    assert list(tmp_path.iterdir()) == []
