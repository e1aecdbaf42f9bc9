"""The pure protocol layer: bytes to SSE items to route events to StreamState. No Qt, no httpx."""

from __future__ import annotations

import importlib.machinery
import os
import sys
import zlib
from types import ModuleType

# The SSE parser may be compiled by mypyc at install time (setup.py). The import system would
# prefer a compiled ``sse`` next to ``sse.py`` whatever the source says, so it is used only while
# ``sse.py`` holds exactly the bytes it was built from (``sse.build``: size and CRC-32, written by
# the build); otherwise the source is loaded, and an edited parser is what runs.
_HERE = os.path.dirname(__file__)
_SOURCE = os.path.join(_HERE, "sse.py")
_STAMP = os.path.join(_HERE, "sse.build")


def source_stamp(source: bytes) -> str:
    """The stamp of a parser source: its size and CRC-32, as setup.py writes it."""
    return f"{len(source)} {zlib.crc32(source):08x}\n"


def compiled_parser_path() -> str | None:
    """The compiled parser beside ``sse.py``, if an install built one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(_HERE, "sse" + suffix)
        if os.path.exists(path):
            return path
    return None


def is_compiled(module: ModuleType) -> bool:
    """True for a module built as an extension (the mypyc parser), False for one run from source."""
    return str(module.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_parser_is_current(source_path: str = _SOURCE, stamp_path: str = _STAMP) -> bool:
    """True when the stamp says the compiled parser was built from the source as it is now."""
    try:
        with open(stamp_path) as stamp, open(source_path, "rb") as source:
            return stamp.read() == source_stamp(source.read())
    except OSError:
        return False


def load_source_parser(name: str = f"{__name__}.sse") -> ModuleType:
    """``sse.py`` run by the interpreter, as module ``name`` (the default replaces a stale
    build; the tests and the benchmark load it beside the compiled one under names of their own).
    """
    import importlib.util

    loaded = sys.modules.get(name)
    if loaded is not None and loaded.__file__ == _SOURCE:
        return loaded
    loader = importlib.machinery.SourceFileLoader(name, _SOURCE)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while a class is made
    loader.exec_module(module)
    return module


if compiled_parser_path() is not None and not compiled_parser_is_current():
    print(
        "playground: the compiled SSE parser was built from another sse.py; running the source "
        "(pip install -e . rebuilds it)",
        file=sys.stderr,
    )
    load_source_parser()
