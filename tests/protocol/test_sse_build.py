"""The mypyc build of the SSE parser (and its fellow compiled modules): it is what runs, it matches
the source, never runs stale."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import all_captures, sse_like_streams

import playground.protocol as protocol
from playground.protocol import is_compiled
from playground.protocol import sse as active

PROTOCOL_DIR = Path(protocol.__file__).parent
SOURCE = PROTOCOL_DIR / "sse.py"


# ``sse.py`` run by the interpreter, under a name of its own (the pure-Python fallback).
SOURCE_PARSER = protocol.load_source_parser("_sse_from_source")


def _items(module: ModuleType, stream: bytes, cuts: list[int]) -> list[str]:
    """Every item's full repr (fields, raw bytes, offsets, times), fed cut at ``cuts``."""
    parser = module.SSEParser()
    out: list[str] = []
    last = 0
    for n, cut in enumerate([*sorted(set(cuts)), len(stream)]):
        if cut > last:
            out.extend(map(repr, parser.feed(stream[last:cut], float(n))))
            last = cut
    out.extend(map(repr, parser.finish(99.0)))
    return out


@pytest.mark.skipif(
    bool(os.environ.get("PLAYGROUND_PURE_PYTHON")), reason="pure-Python install asked for"
)
def test_the_installed_parser_is_the_compiled_one() -> None:
    # the benchmark's parser figures are the compiled build's; scripts/install.sh installs a C
    # compiler and Python's headers so that `pip install -e .` can build it (setup.py).
    assert is_compiled(active), (
        "playground.protocol.sse is running from source: the install did not compile it "
        "(pip install -e . needs a C compiler and Python's headers; see setup.py)"
    )


def test_the_source_parser_really_is_the_source() -> None:
    assert not is_compiled(SOURCE_PARSER)
    assert SOURCE_PARSER.SSEEvent is not active.SSEEvent


def test_compiled_and_source_parsers_agree_on_every_capture(captures_dir: Path) -> None:
    for path in all_captures(captures_dir):
        stream = path.read_bytes()
        for size in (1, 7, 64, 4096, len(stream) or 1):
            cuts = list(range(size, len(stream), size))
            assert _items(active, stream, cuts) == _items(SOURCE_PARSER, stream, cuts), path.name


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), stream=sse_like_streams)
def test_compiled_and_source_parsers_agree_on_any_bytes_and_chunking(
    data: st.DataObject, stream: bytes
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=12))
    assert _items(active, stream, cuts) == _items(SOURCE_PARSER, stream, cuts)


def test_data_and_start_read_the_same_from_both_builds() -> None:
    stream = b"id: 1\ndata: a\ndata: \xc3\xa9\n\n: c\ndata: [DONE]\n\n"
    for module in (active, SOURCE_PARSER):
        items = module.parse_all(stream, 5)
        assert [type(i).__name__ for i in items] == ["SSEEvent", "SSEComment", "SSEEvent"]
        assert (items[0].data, items[0].id, items[0].start, items[0].end) == ("a\né", "1", 0, 24)
        made = module.SSEEvent.make(4, "error", "boom", None, None, b"boom", 0, 4, 1.0, 2.0)
        assert (made.event, made.data, made.start, made.t_last) == ("error", "boom", 0, 2.0)


def test_the_stamp_names_the_exact_source(tmp_path: Path) -> None:
    source = tmp_path / "sse.py"
    stamp = tmp_path / "sse.build"
    source.write_bytes(b"x = 1\n")
    assert not protocol.compiled_parser_is_current(str(source), str(stamp))  # no stamp
    stamp.write_text(protocol.source_stamp(b"x = 1\n"))
    assert protocol.compiled_parser_is_current(str(source), str(stamp))
    source.write_bytes(b"x = 2\n")  # same size, other bytes
    assert not protocol.compiled_parser_is_current(str(source), str(stamp))


def _import_in_copy(root: Path) -> subprocess.CompletedProcess[str]:
    """Each compiled module's file, one a line, as a fresh interpreter imports the copy."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(root)
    script = (
        "import importlib, playground.protocol as p\n"
        "for m in p.COMPILED_MODULES:\n"
        "    print(importlib.import_module('playground.protocol.' + m).__file__)\n"
        "import playground.protocol.stream\n"  # and the rest of the protocol imports with them
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("edited", ["sse", "text_buffer"])
def test_an_edited_module_runs_from_source_not_from_a_stale_build(
    tmp_path: Path, edited: str
) -> None:
    # A copy of the package as an install leaves it (with the compiled modules and their stamps,
    # when this install has them), imported in a fresh interpreter.
    package = tmp_path / "playground"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copytree(
        PROTOCOL_DIR, package / "protocol", ignore=shutil.ignore_patterns("__pycache__")
    )
    sources = [str(package / "protocol" / f"{m}.py") for m in protocol.COMPILED_MODULES]
    fresh = _import_in_copy(tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    if is_compiled(active):
        files = fresh.stdout.split()
        assert all(f.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for f in files)
        assert len(files) == len(sources)
        assert fresh.stderr == ""
    copied = package / "protocol" / f"{edited}.py"
    copied.write_bytes(copied.read_bytes() + b"# edited after the build\n")
    stale = _import_in_copy(tmp_path)
    assert stale.returncode == 0, stale.stderr
    # Compiled code calls the other compiled modules natively: all run from source, or none.
    assert stale.stdout.split() == sources
    if is_compiled(active):
        assert f"built from another {edited}.py" in stale.stderr


@pytest.mark.skipif(
    bool(os.environ.get("PLAYGROUND_PURE_PYTHON")), reason="pure-Python install asked for"
)
def test_every_module_setup_compiles_is_installed_compiled() -> None:
    # playground.protocol.COMPILED_MODULES is the one list setup.py builds and the package checks.
    for name in protocol.COMPILED_MODULES:
        assert is_compiled(importlib.import_module(f"playground.protocol.{name}")), name
