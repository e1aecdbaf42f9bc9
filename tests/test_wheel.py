"""The wheel as a user gets it: built, installed into a fresh virtual environment, and run there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from playground.assets import SAMPLE_CAPTURES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# What a checkout may hold that is no part of the source: earlier builds, caches, a venv.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.build", ".*cache*",
    ".hypothesis", ".venv", "venv", "tmp",
)  # fmt: skip


def _run(*args: str | Path, env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    result = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"{args}: {result.stdout[-2000:]}{result.stderr[-4000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(the wheel, the venv's bin folder, the environment to run it in)."""
    work = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.pop("PLAYGROUND_PURE_PYTHON", None)  # the wheel is built as a user's pip builds it
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", QT_QPA_PLATFORM="offscreen")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    # A clean copy of the source: a checkout's build/ folder can hold files no longer in it.
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    dist = work / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        dist,
        source,
        env=env,
        cwd=work,
    )
    (wheel,) = dist.glob("playground-*.whl")
    # The venv sees this interpreter's packages for the dependencies (PySide6 is large; the
    # machine has them already), so the checks below make sure the wheel's own copy is the one
    # that runs, never the checkout's. Without pip of its own (no ensurepip needed, as on a
    # Debian Python without python3-venv): this interpreter's pip, run by the venv's python,
    # installs into the venv.
    venv = work / "venv"
    _run(
        sys.executable,
        "-m",
        "venv",
        "--system-site-packages",
        "--without-pip",
        venv,
        env=env,
        cwd=work,
    )
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    _run(bin_dir / "python", "-m", "pip", "install", "--no-deps", "-q", wheel, env=env, cwd=work)
    return wheel, bin_dir, env


def test_the_wheel_installs_one_top_level_package_with_its_resources(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    wheel, _, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["playground"]
        (record,) = [n for n in names if n.endswith(".dist-info/RECORD")]
        paths = [line.rsplit(",", 2)[0] for line in archive.read(record).decode().splitlines()]
    roots = {p.split("/", 1)[0] for p in paths if p}
    assert {r for r in roots if not r.endswith((".dist-info", ".data"))} == {"playground"}
    assert not any(p.startswith("playground/resources/../") for p in paths)
    for route in SAMPLE_CAPTURES:
        assert f"playground/resources/captures/{route}.capture.jsonl" in paths
    for name in ("playground.desktop", "playground-mime.xml", "icons/playground.svg"):
        assert f"playground/resources/{name}" in paths
    assert "playground/resources/samples/hello.wav" in paths
    assert "playground/resources/evaluations/sample.eval.json" in paths
    assert any(p.startswith("playground/bench/") for p in paths)
    assert not any(p.startswith(("benchmarks/", "tests/", "scripts/")) for p in paths)


def test_the_installed_program_runs_from_the_wheel(
    installed: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, bin_dir, env = installed
    venv = bin_dir.parent
    out = _run(bin_dir / "playground", "--version", env=env, cwd=tmp_path)
    from importlib.metadata import version

    assert out.strip() == f"playground {version('playground')}"
    probe = (
        "import importlib, json, playground, playground.assets as a, playground.protocol as p\n"
        "compiled = [importlib.import_module('playground.protocol.' + m)"
        " for m in p.COMPILED_MODULES]\n"
        "print(json.dumps({'package': playground.__file__,"
        " 'compiled': all(map(p.is_compiled, compiled)),"
        " 'icon': str(a.icon_svg()), 'samples': {r: str(a.sample_capture(r))"
        " for r in a.SAMPLE_CAPTURES}}))"
    )
    found = json.loads(_run(bin_dir / "python", "-c", probe, env=env, cwd=tmp_path))
    inside = [Path(found["package"]), Path(found["icon"]), *map(Path, found["samples"].values())]
    for path in inside:  # the wheel's copy, not the checkout's (nor an editable install's)
        assert path.resolve().is_relative_to(venv.resolve()), path
    assert found["compiled"], "the installed SSE parser (or a fellow module) is not compiled"
    for route, path in found["samples"].items():
        state = json.loads(
            _run(bin_dir / "playground", "inspect", path, "--json", env=env, cwd=tmp_path)
        )
        assert (state["route"], state["status"]) == (route, "complete")
    # The benchmarks run from the installed package too, a Qt group in its child process.
    bench = _run(
        bin_dir / "playground",
        "bench",
        "--tiny",
        "--only",
        "timeline,decode",
        env=env,
        cwd=tmp_path,
    )
    figures = dict(line.split(": ", 1) for line in bench.splitlines() if ": " in line)
    for name in ("timeline_bytes_per_event", "decode_vs_openai_sdk"):
        assert float(figures[name]) > 0, bench
