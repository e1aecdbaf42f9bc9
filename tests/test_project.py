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


def test_mypy_strict_on_the_package_and_the_tests() -> None:
    """Every test folder and file is checked with the package, tests/ui included."""
    tests = ROOT / "tests"
    folders = sorted(
        f"tests/{d.name}" for d in tests.iterdir() if d.is_dir() and any(d.rglob("*.py"))
    )
    files = sorted(f"tests/{f.name}" for f in tests.glob("*.py"))
    result = _run(sys.executable, "-m", "mypy", "--strict", "playground", *folders, *files)
    assert result.returncode == 0, result.stdout + result.stderr


# One job per module, 500 lines at most: a longer file has a second job to move out. The SSE
# parser, compiled with mypyc, is the one file allowed to be longer.
MAX_LINES = 500
LONG_ALLOWED = {"playground/protocol/sse.py"}


def test_no_file_is_over_500_lines() -> None:
    long = {
        path.relative_to(ROOT).as_posix(): lines
        for folder in ("playground", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert {p: n for p, n in long.items() if p not in LONG_ALLOWED} == {}


def test_the_import_contracts_hold() -> None:
    # pyproject.toml: the pure protocol layer, Qt only in the ui, the ui's floors, no circles.
    result = _run("lint-imports")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_resource_ships_in_the_package_and_is_found_there() -> None:
    # A non-editable install copies only packages and their package data: the top-level
    # resources/ folder is the package playground.resources (setup.py maps it), every file in it
    # is matched by pyproject's package-data, and the code finds them through that package.
    import tomllib
    from importlib.resources import files

    from playground.assets import icon_svg, sample_wav

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["playground.resources"]
    folder = ROOT / "resources"
    shipped = [
        p.relative_to(folder)
        for p in folder.rglob("*")
        if p.is_file() and p.name != "__init__.py" and "__pycache__" not in p.parts
    ]
    assert len(shipped) > 10
    for relative in shipped:
        assert any(relative.match(pattern) for pattern in patterns), relative
    assert Path(str(files("playground.resources"))).resolve() == folder.resolve()
    for path in (icon_svg(), sample_wav()):
        assert path.is_file() and path.resolve().is_relative_to(folder.resolve())
    assert not (ROOT / "playground" / "resources").exists()  # one copy, at the top level
