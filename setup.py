"""Build step: compile the SSE parser with mypyc when this machine can; pure Python otherwise.

Everything else about the package lives in pyproject.toml. Why mypyc (issue 7): the parser is
the one loop every byte of every stream goes through, and the same fully typed source
(``mypy --strict``) compiled by mypyc runs about twice as fast as under the interpreter, with no
second implementation to keep in step. The build is optional: without a C compiler, Python's
headers or mypyc, or with ``PLAYGROUND_PURE_PYTHON=1``, the package installs as pure Python and
``playground.protocol`` imports the source. Next to the compiled module the build writes
``sse.build``, the size and CRC-32 of the source it compiled; ``playground.protocol`` uses the
compiled module only while ``sse.py`` still has exactly those bytes, so an edited parser is never
shadowed by a stale build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The stamp is what the package checks at import; one function writes and checks it.
from playground.protocol import source_stamp

PARSER = "playground/protocol/sse.py"
STAMP = "sse.build"


def _note(message: str) -> None:
    print(f"playground: {message}; the SSE parser installs as pure Python.", file=sys.stderr)


def _remove_in_place_build() -> None:
    """An editable install asked for pure Python drops an earlier in-place build, so the source
    is what runs."""
    package = Path(PARSER).parent
    for path in [package / STAMP, *package.glob("sse.*.so"), *package.glob("sse__mypyc.*.so")]:
        path.unlink(missing_ok=True)


def compiled_modules() -> list[Any]:
    if os.environ.get("PLAYGROUND_PURE_PYTHON"):
        _remove_in_place_build()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _note("mypyc is not available")
        return []
    try:
        return list(mypycify([PARSER], opt_level="3", debug_level="0"))
    except BaseException as exc:  # mypyc exits through SystemExit on a type error
        _note(f"mypyc could not compile {PARSER} ({exc})")
        return []


class OptionalBuildExt(build_ext):
    """Builds the compiled parser if it can; a failed build leaves a working pure install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers, a compile error: all the same here
            self._remove_outputs()
            _note(f"the C build failed ({exc})")
            return
        if self.extensions:
            self._write_stamps()

    def _outputs(self) -> list[Path]:
        return [Path(self.get_ext_fullpath(ext.name)) for ext in self.extensions]

    def _remove_outputs(self) -> None:
        for path in self._outputs():
            path.unlink(missing_ok=True)

    def _write_stamps(self) -> None:
        source = Path(PARSER).read_bytes()
        for path in self._outputs():
            if path.name.startswith("sse."):
                stamp = path.with_name(STAMP)
                temporary = stamp.with_suffix(".tmp")
                temporary.write_text(source_stamp(source))
                temporary.replace(stamp)

    def get_outputs(self) -> list[str]:
        # The stamp ships beside the compiled module (a wheel, an editable install).
        stamps = [p.with_name(STAMP) for p in self._outputs() if p.name.startswith("sse.")]
        return list(super().get_outputs()) + [str(p) for p in stamps if p.exists()]


# The one top-level package is playground; the top-level resources/ folder (icons, samples, the
# desktop entry) installs inside it as playground.resources, read through importlib.resources.
PACKAGES = [*find_packages(include=["playground", "playground.*"]), "playground.resources"]

setup(
    packages=PACKAGES,
    package_dir={"playground.resources": "resources"},
    ext_modules=compiled_modules(),
    cmdclass={"build_ext": OptionalBuildExt},
)
