"""scripts/install.sh on an externally managed Python (PEP 668): README's quick start as written.

README's lines are ``bash scripts/install.sh && python3 -m playground`` and the same with
``--test`` and ``python3 -m pytest``: the second command is the user's own ``python3``, so after
the script that interpreter must import the package. The interpreter here is this test's Python
copied beside a stdlib marked ``EXTERNALLY-MANAGED`` (what Debian 12 and Ubuntu 24.04 ship), with
pip and nothing else installed; apt is never reached (every system package reads as installed);
pip never reaches an index: the project it installs is this checkout through an in-tree build
backend that writes an editable wheel with no build requirements (the real build needs setuptools
and mypy from an index).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pip
import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION_DIR = f"python{sys.version_info.major}.{sys.version_info.minor}"

BACKEND = '''"""An editable wheel of the checkout at ROOT, with no build requirements."""
import base64, hashlib, os, zipfile

ROOT = {root!r}
NAME, VERSION = "playground", "0.1.0"


def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    info = f"{{NAME}}-{{VERSION}}.dist-info"
    files = {{
        f"__editable__.{{NAME}}.pth": (ROOT + "\\n").encode(),
        f"{{info}}/METADATA": (
            f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n"
            "Provides-Extra: test\\n"
        ).encode(),
        f"{{info}}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\n"
        b"Tag: py3-none-any\\n",
    }}
    name = f"{{NAME}}-{{VERSION}}-py3-none-any.whl"
    lines = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            lines.append(f"{{path}},sha256={{digest.decode()}},{{len(data)}}")
        lines.append(f"{{info}}/RECORD,,")
        wheel.writestr(f"{{info}}/RECORD", "\\n".join(lines) + "\\n")
    return name
'''

PYPROJECT = """[build-system]
requires = []
build-backend = "quickstart_backend"
backend-path = ["."]

[project]
name = "playground"
version = "0.1.0"
"""


def _managed_python(where: Path) -> Path:
    """A copy of this test's interpreter whose stdlib holds an EXTERNALLY-MANAGED marker (its
    prefix is ``where``, not a virtual environment), with pip in its site-packages."""
    stdlib = Path(sysconfig.get_path("stdlib"))
    lib = where / "lib" / VERSION_DIR
    lib.mkdir(parents=True)
    for entry in stdlib.iterdir():
        if entry.name not in ("site-packages", "dist-packages", "EXTERNALLY-MANAGED"):
            (lib / entry.name).symlink_to(entry)
    (lib / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=This test's Python is managed by its distribution.\n"
    )
    site_packages = lib / "site-packages"
    site_packages.mkdir()
    pip_dir = Path(pip.__file__).parent
    for entry in pip_dir.parent.iterdir():
        if entry == pip_dir or (entry.name.startswith("pip-") and entry.suffix == ".dist-info"):
            (site_packages / entry.name).symlink_to(entry)
    include = Path(sysconfig.get_path("include")).parent
    (where / "include").symlink_to(include)
    (where / "bin").mkdir()
    binary = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    for name in ("python3", VERSION_DIR):
        shutil.copy2(binary, where / "bin" / name)
    return where / "bin" / "python3"


def _stubs(where: Path) -> Path:
    """dpkg-query saying every package is installed; apt-get and sudo that must not run."""
    where.mkdir()
    scripts = {
        "dpkg-query": "echo 'install ok installed'",
        "apt-get": "echo 'apt-get ran' >&2; exit 97",
        "sudo": "echo 'sudo ran' >&2; exit 97",
    }
    for name, body in scripts.items():
        path = where / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return where


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("quickstart")
    python = _managed_python(base / "python")
    project = base / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "install.sh", project / "scripts" / "install.sh")
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "quickstart_backend.py").write_text(BACKEND.format(root=str(ROOT)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL"))}
    env |= {
        "PATH": os.pathsep.join(
            [str(_stubs(base / "stubs")), str(python.parent), "/usr/bin", "/bin"]
        ),
        "HOME": str(base / "home"),
        "PYTHONUSERBASE": str(base / "user"),
        "PIP_CONFIG_FILE": os.devnull,  # the machine's pip.conf (indexes, constraints) is not ours
        "PIP_NO_INDEX": "1",
    }
    return project, env


def _run(line: str, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_copy_is_externally_managed_so_a_bare_pip_install_fails(
    quickstart: tuple[Path, dict[str, str]],
) -> None:
    project, env = quickstart
    found = _run("python3 -c 'import sys; print(sys.prefix)'", project, env)
    assert found.stdout.strip().endswith("python"), found.stderr
    bare = _run("python3 -m pip install --dry-run -e .", project, env)
    assert bare.returncode != 0
    assert "externally-managed-environment" in bare.stderr + bare.stdout


@pytest.mark.parametrize("flag", ["", " --test"])
def test_readmes_quick_start_imports_the_package_with_the_users_python3(
    quickstart: tuple[Path, dict[str, str]], flag: str
) -> None:
    project, env = quickstart
    line = (
        f"bash scripts/install.sh{flag} && "
        "python3 -c 'import playground, sys; print(playground.__file__); print(sys.prefix)'"
    )
    result = _run(line, project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    imported, prefix = result.stdout.strip().splitlines()[-2:]
    assert Path(imported) == ROOT / "playground" / "__init__.py"
    assert prefix.endswith("python")  # the user's python3, not a virtual environment
    assert "apt-get ran" not in result.stderr
    user_site = Path(env["PYTHONUSERBASE"]) / "lib" / VERSION_DIR / "site-packages"
    assert any(user_site.glob("__editable__.playground*.pth")), "not in the user's site-packages"
    stdlib = project.parent / "python" / "lib" / VERSION_DIR
    assert not any((stdlib / "site-packages").glob("*playground*")), "wrote the system's own"


def test_inside_an_activated_virtual_environment_it_installs_into_that_environment(
    quickstart: tuple[Path, dict[str, str]],
) -> None:
    project, env = quickstart
    venv = project.parent / "venv"
    # The managed Python's pip is its only one: the environment sees it through the system site.
    made = _run(f"python3 -m venv --without-pip --system-site-packages {venv}", project, env)
    assert made.returncode == 0, made.stderr
    line = (
        f". {venv}/bin/activate && bash scripts/install.sh && "
        "python3 -c 'import playground, sys; print(playground.__file__); print(sys.prefix)'"
    )
    result = _run(line, project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    imported, prefix = result.stdout.strip().splitlines()[-2:]
    assert Path(imported) == ROOT / "playground" / "__init__.py"
    assert Path(prefix) == venv
    assert any((venv / "lib" / VERSION_DIR / "site-packages").glob("__editable__.playground*"))
