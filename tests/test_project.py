"""Project hygiene as tests: README and CI agree, lint and types are clean, the core stays pure."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^(bash scripts/install\.sh.*)$", readme, flags=re.M)
    test_commands = [c for c in commands if "--test" in c]
    assert test_commands, "README has no test command"
    ci_run = (ROOT / ".ci" / "run").read_text().splitlines()
    ci_lines = [ln for ln in ci_run if ln.startswith("bash ")]
    assert ci_lines == [test_commands[0]]


def test_ruff_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "--quiet", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_protocol() -> None:
    result = _run(sys.executable, "-m", "mypy", "--strict", "playground/protocol")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_transport_runs_the_session_and_the_current_run() -> None:
    result = _run(
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "playground/transport",
        "playground/runs",
        "playground/ui/session.py",
        "playground/ui/current_run.py",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_protocol_layer_imports_neither_qt_nor_httpx() -> None:
    result = _run("lint-imports")
    assert result.returncode == 0, result.stdout + result.stderr


def test_resources_ship_inside_the_package() -> None:
    # A non-editable install copies only the package and its package data: the icon and the
    # sample recording must live there and be listed in pyproject's package-data.
    import tomllib

    from playground.ui.app import ICON_PATH
    from playground.ui.panels.editor import sample_audio_path

    package = ROOT / "playground"
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["playground"]
    for path in (ICON_PATH, sample_audio_path()):
        assert path.is_file()
        relative = path.resolve().relative_to(package)
        assert any(relative.match(pattern) for pattern in patterns), relative
