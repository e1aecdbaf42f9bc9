"""Hypothesis properties over StreamDecoder on every route: random bytes and mutated captures
(bytes flipped, cut, segments repeated, events reordered or dropped, random chunking) never raise,
text only grows between feeds, the final status is one of the five, findings point at real items."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import CAPTURES, all_captures

from playground.protocol.state import STATUSES
from playground.protocol.stream import StreamDecoder

ROUTES = ["auto", "chat", "responses", "messages", "images", "speech", "transcription", "music"]
CONTENT_TYPES = [None, "text/event-stream", "application/json", "audio/mpeg", "text/html"]

# ~200 examples per property, derandomized so CI sees the same inputs every run.
FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_BLOCK_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")


@cache
def _captures() -> list[tuple[str, bytes]]:
    out = []
    for path in all_captures(CAPTURES):
        out.append((Path(path).parent.name, path.read_bytes()[:40_000]))
    assert out, f"no captures under {CAPTURES}"
    return out


def _blocks(data: bytes) -> list[bytes]:
    """Cut a body into its events (each with its blank line), the last piece as it is."""
    out: list[bytes] = []
    last = 0
    for m in _BLOCK_END.finditer(data):
        out.append(data[last : m.end()])
        last = m.end()
    if last < len(data):
        out.append(data[last:])
    return out


@dataclass
class Snapshot:
    """The growing parts of a state: text buffers per choice and tool-call arguments."""

    texts: dict[tuple[str, int], str] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)


def _snapshot(decoder: StreamDecoder) -> Snapshot:
    snap = Snapshot()
    for index, choice in decoder.state.choices.items():
        snap.texts[("text", index)] = choice.text.value
        snap.texts[("reasoning", index)] = choice.reasoning.value
        snap.texts[("refusal", index)] = choice.refusal.value
    snap.tools = [call.arguments.value for call in decoder.state.tool_calls]
    return snap


def _check_grew(before: Snapshot, after: Snapshot, where: str) -> None:
    for key, old in before.texts.items():
        new = after.texts.get(key)
        assert new is not None, f"{where}: {key} disappeared"
        assert new.startswith(old), f"{where}: {key} shrank or changed: {old!r} -> {new!r}"
    assert len(after.tools) >= len(before.tools), f"{where}: tool calls disappeared"
    for i, old in enumerate(before.tools):
        new = after.tools[i]
        assert new.startswith(old), f"{where}: tool call {i} arguments {old!r} -> {new!r}"


def _check_items(decoder: StreamDecoder) -> None:
    items = decoder.items
    for i, item in enumerate(items):
        assert item.index == i, f"items[{i}].index == {item.index}"
    for finding in decoder.state.findings:
        if finding.item is not None:
            assert 0 <= finding.item < len(items), f"finding points nowhere: {finding}"
            assert finding in decoder.findings_for(finding.item)
    for i in range(len(items)):
        for finding in decoder.findings_for(i):
            assert finding.item == i


def _run(
    route: str, content_type: str | None, chunks: list[bytes], *, cancel_at: int | None = None
) -> StreamDecoder:
    """Feed chunk by chunk, checking after each one that nothing shrank; then finish."""
    decoder = StreamDecoder(route)
    decoder.set_content_type(content_type)
    snap = _snapshot(decoder)
    t = 0.0
    for n, chunk in enumerate(chunks):
        if cancel_at is not None and n == cancel_at:
            decoder.cancel()
        new = decoder.feed(chunk, t)
        t += 0.001
        for item in new:
            assert decoder.items[item.index] is item
        after = _snapshot(decoder)
        _check_grew(snap, after, f"after chunk {n}")
        snap = after
        _check_items(decoder)
    decoder.finish(t)
    _check_grew(snap, _snapshot(decoder), "after finish")
    _check_items(decoder)
    assert decoder.state.status in STATUSES, decoder.state.status
    assert decoder.finish(t) == []  # a second finish is a no-op
    return decoder


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@st.composite
def mutated_capture(draw: st.DrawFn) -> tuple[str, bytes]:
    """A capture with a few of: events dropped, repeated, reordered; bytes flipped; a cut."""
    folder, data = draw(st.sampled_from(_captures()))
    blocks = _blocks(data)
    ops = draw(
        st.lists(
            st.sampled_from(["drop", "repeat", "swap", "flip", "cut", "insert", "dup_range"]),
            max_size=6,
        )
    )
    for op in ops:
        if not blocks:
            break
        i = draw(st.integers(0, len(blocks) - 1))
        if op == "drop":
            del blocks[i]
        elif op == "repeat":
            blocks.insert(i, blocks[i])
        elif op == "swap":
            j = draw(st.integers(0, len(blocks) - 1))
            blocks[i], blocks[j] = blocks[j], blocks[i]
        elif op == "dup_range":
            j = draw(st.integers(i, len(blocks)))
            blocks[j:j] = blocks[i:j]
        elif op == "flip":
            flipped = bytearray(blocks[i])
            if flipped:
                at = draw(st.integers(0, len(flipped) - 1))
                flipped[at] = draw(st.integers(0, 255))
            blocks[i] = bytes(flipped)
        elif op == "insert":
            blocks.insert(i, draw(st.binary(max_size=64)))
        elif op == "cut":
            raw = blocks[i]
            blocks[i] = raw[: draw(st.integers(0, len(raw)))]
            del blocks[i + 1 :]
    return folder, b"".join(blocks)


@FUZZ
@given(
    case=mutated_capture(),
    route=st.sampled_from([*ROUTES, "same"]),
    cuts=st.lists(st.integers(0, 1 << 20), max_size=40),
)
def test_mutated_captures_keep_invariants(
    case: tuple[str, bytes], route: str, cuts: list[int]
) -> None:
    folder, data = case
    if route == "same":
        route = folder if folder in ROUTES else "auto"
    _run(route, "text/event-stream", _chunked(data, cuts))


@FUZZ
@given(
    data=st.binary(max_size=4096),
    route=st.sampled_from(ROUTES),
    content_type=st.sampled_from(CONTENT_TYPES),
    cuts=st.lists(st.integers(0, 4096), max_size=20),
)
def test_random_bytes_any_route(
    data: bytes, route: str, content_type: str | None, cuts: list[int]
) -> None:
    _run(route, content_type, _chunked(data, cuts))


# Lines that look like SSE but carry random JSON-ish values: reaches the route decoders' branches.
_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=8), st.floats(allow_nan=False)
)
_KEYS = st.sampled_from(
    [
        "type",
        "choices",
        "delta",
        "content",
        "reasoning",
        "reasoning_content",
        "refusal",
        "tool_calls",
        "index",
        "id",
        "function",
        "name",
        "arguments",
        "finish_reason",
        "usage",
        "error",
        "message",
        "item_id",
        "output_index",
        "content_index",
        "sequence_number",
        "text",
        "content_block",
        "b64_json",
        "partial_image_b64",
        "audio",
        "response",
        "status",
    ]
)
_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=12,
)
_EVENT_NAMES = st.sampled_from(
    [
        None,
        "message",
        "error",
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "response.output_text.delta",
        "response.completed",
        "response.failed",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "image_generation.partial_image",
        "speech.audio.delta",
        "transcript.text.delta",
        "ping",
    ]
)


@st.composite
def json_stream(draw: st.DrawFn) -> bytes:
    import json

    out = []
    for _ in range(draw(st.integers(0, 12))):
        name = draw(_EVENT_NAMES)
        value = draw(_JSON)
        typed = name is not None and name.startswith(("response.", "image_", "speech", "transcri"))
        if typed and isinstance(value, dict) and draw(st.booleans()):
            value["type"] = name
        line = b"data: " + json.dumps(value).encode() + b"\n\n"
        if draw(st.integers(0, 9)) == 0:
            line = b"data: [DONE]\n\n"
        out.append((f"event: {name}\n".encode() if name else b"") + line)
    return b"".join(out)


@FUZZ
@given(
    data=json_stream(),
    route=st.sampled_from(ROUTES),
    cuts=st.lists(st.integers(0, 4096), max_size=10),
    cancel=st.one_of(st.none(), st.integers(0, 5)),
)
def test_random_json_events_keep_invariants(
    data: bytes, route: str, cuts: list[int], cancel: int | None
) -> None:
    decoder = _run(route, "text/event-stream", _chunked(data, cuts), cancel_at=cancel)
    # Nothing the bytes hold is a decoder bug (findings, never exceptions: PROTOCOL.md §0).
    assert [f.message for f in decoder.state.findings if f.code == "decoder_error"] == []


@FUZZ
@given(
    status=st.sampled_from([400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504]),
    body=st.one_of(st.binary(max_size=300), json_stream()),
    content_type=st.sampled_from(CONTENT_TYPES),
    retry_after=st.one_of(st.none(), st.text(max_size=5)),
)
def test_fail_before_stream_any_body(
    status: int, body: bytes, content_type: str | None, retry_after: str | None
) -> None:
    decoder = StreamDecoder("auto")
    decoder.fail_before_stream(status, body, content_type, retry_after)
    decoder.finish(0.0)
    assert decoder.state.status == "failed"
    assert decoder.state.error is not None
    assert decoder.state.error.status == status
    assert isinstance(decoder.state.error.message, str) and decoder.state.error.message
    _check_items(decoder)


def _responses_event(payload: dict[str, object]) -> bytes:
    import json

    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def test_responses_tool_arguments_never_rewritten_by_a_later_done() -> None:
    """Found by fuzzing (repeated/flipped events): a second `.done` carrying other arguments
    replaced the call's arguments wholesale; text must only grow (DESIGN.md), the disagreement is a
    finding on the event that carried it."""
    head = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "r"}},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {"id": "fc1", "type": "function_call", "call_id": "c1", "name": "f"},
        },
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": 2,
            "item_id": "fc1",
            "output_index": 0,
            "arguments": '{"city": "Paris"}',
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 3,
            "output_index": 0,
            "item": {
                "id": "fc1",
                "type": "function_call",
                "call_id": "c1",
                "name": "f",
                "arguments": '{"city": "Rome"}',
            },
        },
    ]
    decoder = StreamDecoder("responses")
    snap = _snapshot(decoder)
    for payload in head:
        decoder.feed(_responses_event(payload), 0.0)
        after = _snapshot(decoder)
        _check_grew(snap, after, str(payload["type"]))
        snap = after
    assert decoder.state.tool_calls[0].arguments.value == '{"city": "Paris"}'
    assert decoder.findings_for(3), "the disagreeing output_item.done deserves a finding"
