"""Build step: compile the protocol's hot modules with mypyc when this machine can; pure Python
otherwise.

Everything else about the package lives in pyproject.toml. Why mypyc (issue 7): the SSE parser is
the one loop every byte of every stream goes through, and the same fully typed source
(``mypy --strict``) compiled by mypyc runs about twice as fast as under the interpreter, with no
second implementation to keep in step. The same holds for the two loops every token of a chat
answer goes through (``template_match``: a read's events against chat's text template;
``text_buffer``: the text the state folds into), which compiled cut the whole decode by a fifth
(measured). ``playground.protocol.COMPILED_MODULES`` lists them; they build into one native
library. The build is optional: without a C compiler, Python's headers or mypyc, or with
``PLAYGROUND_PURE_PYTHON=1``, the package installs as pure Python and ``playground.protocol``
imports the sources. Next to each compiled module the build writes ``<name>.build``, the size and
CRC-32 of the source it compiled; ``playground.protocol`` uses the compiled modules only while
every source still has exactly those bytes, so an edited module is never shadowed by a stale build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The stamp is what the package checks at import; one function writes and checks it, and the
# package lists the modules it compiles.
from playground.protocol import COMPILED_MODULES, source_stamp

PACKAGE = Path("playground/protocol")
SOURCES = [str(PACKAGE / f"{name}.py") for name in COMPILED_MODULES]
GROUP = "playground.protocol._compiled"  # the native library they share


def _note(message: str) -> None:
    print(f"playground: {message}; the protocol installs as pure Python.", file=sys.stderr)


def _remove_in_place_build() -> None:
    """An editable install asked for pure Python drops an earlier in-place build, so the sources
    are what runs."""
    stale = list(PACKAGE.glob("*__mypyc.*.so"))
    for name in COMPILED_MODULES:
        stale += [PACKAGE / f"{name}.build", *PACKAGE.glob(f"{name}.*.so")]
    for path in stale:
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
        return list(mypycify(SOURCES, opt_level="3", debug_level="0", group_name=GROUP))
    except BaseException as exc:  # mypyc exits through SystemExit on a type error
        _note(f"mypyc could not compile {', '.join(SOURCES)} ({exc})")
        return []


def _stamp_of(output: Path) -> Path | None:
    """Where the stamp of a compiled module's output goes (None for the shared library)."""
    name = output.name.split(".", 1)[0]
    return output.with_name(f"{name}.build") if name in COMPILED_MODULES else None


class OptionalBuildExt(build_ext):
    """Builds the compiled modules if it can; a failed build leaves a working pure install."""

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
        for path in self._outputs():
            stamp = _stamp_of(path)
            if stamp is not None:
                source = (PACKAGE / stamp.with_suffix(".py").name).read_bytes()
                temporary = stamp.with_suffix(".tmp")
                temporary.write_text(source_stamp(source))
                temporary.replace(stamp)

    def get_outputs(self) -> list[str]:
        # The stamps ship beside the compiled modules (a wheel, an editable install).
        stamps = [s for s in map(_stamp_of, self._outputs()) if s is not None and s.exists()]
        return list(super().get_outputs()) + [str(p) for p in stamps]


# The one top-level package is playground; the top-level resources/ folder (icons, samples, the
# desktop entry) installs inside it as playground.resources, read through importlib.resources.
PACKAGES = [*find_packages(include=["playground", "playground.*"]), "playground.resources"]

setup(
    packages=PACKAGES,
    package_dir={"playground.resources": "resources"},
    ext_modules=compiled_modules(),
    cmdclass={"build_ext": OptionalBuildExt},
)
