"""The hostile corpus (tests/hostile/, scripts/make_hostile_corpus.py) and a Hypothesis fuzz
over it: every route's decoder and capture loading read anything, raise nothing, keep findings
bounded, and an export of a planted capture is code that parses and holds the values as data.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.bench.hostile_inputs import CORPUS
from playground.protocol.capture import CaptureError, read_capture
from playground.protocol.findings import CODES, STORED_PER_CODE
from playground.protocol.state import STATUSES
from playground.protocol.stream import StreamDecoder
from playground.runs.export import ExportError, export_request

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "hostile"
ROUTES = ["auto", "chat", "responses", "messages", "images", "speech", "transcription", "music"]
STREAMS = sorted(HOSTILE.glob("*.sse"))
CAPTURES = sorted(HOSTILE.glob("*.capture"))

# A fixed, small budget: derandomized so CI sees the same inputs, no deadline (a loaded runner).
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _decode(data: bytes, route: str, step: int = 4096) -> StreamDecoder:
    decoder = StreamDecoder(route)
    for n in range(0, len(data), step):
        decoder.feed(data[n : n + step], n / 1e6)
    decoder.finish(1.0)
    return decoder


def _holds(decoder: StreamDecoder) -> None:
    state = decoder.state
    assert state.status in STATUSES
    assert len(state.findings) <= STORED_PER_CODE * len(CODES)
    assert all(f.code in CODES for f in state.findings)
    assert all(f.item is None or 0 <= f.item < len(decoder.items) for f in state.findings)


def test_the_corpus_is_checked_in_and_small() -> None:
    assert {p.stem for p in STREAMS} == set(CORPUS)
    assert len(CAPTURES) == 4
    assert all(p.stat().st_size <= 64_000 for p in [*STREAMS, *CAPTURES])


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_reads_every_hostile_stream(route: str) -> None:
    for path in STREAMS:
        _holds(_decode(path.read_bytes(), route))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_big_hostile_streams_keep_findings_bounded(name: str) -> None:
    """Built at test time (4 MB each: big ones are never checked in)."""
    decoder = _decode(CORPUS[name](4_000_000), "chat", 65_536)
    _holds(decoder)
    if name == "invalid":
        assert sum(decoder.state.findings_omitted.values()) > 400_000


@pytest.mark.parametrize("fmt", ["curl", "python", "typescript"])
def test_planted_captures_export_as_data(fmt: str) -> None:
    for path in CAPTURES:
        capture = read_capture(path)
        assert capture.request is not None and capture.route is not None
        try:
            code = export_request(capture.request, capture.route, fmt)
        except ExportError as exc:
            assert "NUL" in str(exc) or "method" in str(exc)
            continue
        if fmt == "python":
            tree = ast.parse(code)
            calls = {
                node.func.id
                for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            }
            assert "__import__" not in calls
        if fmt != "curl":  # (in a single-quoted shell word U+2028 is a character like any)
            assert "\u2028" not in code  # it ends a JavaScript comment or line


def _mutations(data: bytes) -> st.SearchStrategy[bytes]:
    cut = st.integers(0, len(data))
    return st.one_of(
        cut.map(lambda n: data[:n]),
        st.tuples(cut, st.binary(max_size=64)).map(lambda t: data[: t[0]] + t[1] + data[t[0] :]),
        st.tuples(cut, st.integers(1, 2_000), st.sampled_from([b"[", b"{", b"]", b'"', b"\n"])).map(
            lambda t: data[: t[0]] + t[2] * t[1] + data[t[0] :]
        ),
    )


@FUZZ
@given(
    st.sampled_from(STREAMS).flatmap(lambda p: _mutations(p.read_bytes()[:20_000])),
    st.sampled_from(ROUTES),
    st.integers(1, 5_000),
)
def test_fuzz_every_route_on_mutated_hostile_streams(data: bytes, route: str, step: int) -> None:
    _holds(_decode(data, route, step))


@FUZZ
@given(st.sampled_from(CAPTURES).flatmap(lambda p: _mutations(p.read_bytes())), st.booleans())
def test_fuzz_capture_loading(data: bytes, strict: bool) -> None:
    """A damaged capture is read leniently or refused with CaptureError, never anything else."""
    try:
        capture = read_capture(data, strict=strict)
    except CaptureError:
        return
    assert capture.chunks is not None
