"""The pure protocol layer: bytes to SSE items to route events to StreamState. No Qt, no httpx."""

from __future__ import annotations

import importlib.machinery
import os
import sys
import zlib
from types import ModuleType

# The modules setup.py compiles with mypyc when the install can, into one native library: the
# loops every byte and every token go through (the SSE parser, the match of chat's text template
# over a read, the text buffer the state folds into). In import order: each imports only earlier
# ones. This is the one list; setup.py reads it.
COMPILED_MODULES = ("sse", "text_buffer", "template_match")

# The import system would prefer a compiled module next to its source whatever the source says,
# so the compiled ones are used only while each source holds exactly the bytes it was built from
# (``<name>.build``: size and CRC-32, written by the build). Compiled code calls the other
# compiled modules natively, so it is all of them or none: if one is missing or stale, every one
# is loaded from its source, and an edited module is what runs.
_HERE = os.path.dirname(__file__)
_SOURCE = os.path.join(_HERE, "sse.py")
_STAMP = os.path.join(_HERE, "sse.build")


def source_stamp(source: bytes) -> str:
    """The stamp of a compiled module's source: its size and CRC-32, as setup.py writes it."""
    return f"{len(source)} {zlib.crc32(source):08x}\n"


def compiled_path(module: str) -> str | None:
    """The compiled build of ``module`` (one of COMPILED_MODULES) beside its source, if any."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(_HERE, module + suffix)
        if os.path.exists(path):
            return path
    return None


def compiled_parser_path() -> str | None:
    """The compiled parser beside ``sse.py``, if an install built one."""
    return compiled_path("sse")


def is_compiled(module: ModuleType) -> bool:
    """True for a module built as an extension (the mypyc parser), False for one run from source."""
    return str(module.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_parser_is_current(source_path: str = _SOURCE, stamp_path: str = _STAMP) -> bool:
    """True when the stamp says the compiled module was built from the source as it is now."""
    try:
        with open(stamp_path) as stamp, open(source_path, "rb") as source:
            return stamp.read() == source_stamp(source.read())
    except OSError:
        return False


def load_source(module: str, name: str | None = None) -> ModuleType:
    """``<module>.py`` run by the interpreter, as module ``name`` (by default its own name, which
    replaces a stale build; the tests and the benchmark load it beside the compiled one under
    names of their own)."""
    import importlib.util

    source = os.path.join(_HERE, module + ".py")
    name = name or f"{__name__}.{module}"
    loaded = sys.modules.get(name)
    if loaded is not None and loaded.__file__ == source:
        return loaded
    loader = importlib.machinery.SourceFileLoader(name, source)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # dataclasses look their module up while a class is made
    loader.exec_module(loaded)
    return loaded


def load_source_parser(name: str = f"{__name__}.sse") -> ModuleType:
    """``sse.py`` run by the interpreter, as module ``name`` (see ``load_source``)."""
    return load_source("sse", name)


def _not_current(module: str) -> bool:
    source = os.path.join(_HERE, module + ".py")
    stamp = os.path.join(_HERE, module + ".build")
    return compiled_path(module) is None or not compiled_parser_is_current(source, stamp)


_built = [m for m in COMPILED_MODULES if compiled_path(m) is not None]
_stale = [m for m in COMPILED_MODULES if _not_current(m)] if _built else []
if _stale:
    print(
        f"playground: the compiled {_stale[0]} was built from another {_stale[0]}.py (or is "
        "missing); running the source of every compiled module (pip install -e . rebuilds them)",
        file=sys.stderr,
    )
    for _module in COMPILED_MODULES:
        load_source(_module)
