"""JSON nested past the reader's limit is a `json_too_deep` finding with its text kept, never a
crash: in tool-call arguments, a structured answer, an event's data, a whole body, an error body.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from protocol_helpers import decode, sse

from playground.protocol.errors import error_from_body
from playground.protocol.projection import parsed_tool_calls, state_json
from playground.protocol.safe_json import MAX_DEPTH

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 1500 + "]" * 1500  # past Python's recursion limit; orjson refuses it too (1,024)
DEEP_READABLE = "[" * 600 + "]" * 600  # orjson reads it; every walk after it recurses 600 deep


def _chunk(delta: dict[str, object], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [choice]})


def _tool_stream(arguments: str) -> bytes:
    start = {"index": 0, "id": "call_1", "type": "function"}
    return sse(
        _chunk({"role": "assistant", "tool_calls": [start | {"function": {"name": "f"}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
        _chunk({}, "tool_calls"),
        "[DONE]",
    )


def _codes(decoder: object) -> list[str]:
    return [f.code for f in decoder.state.findings]  # type: ignore[attr-defined]


def test_deep_tool_arguments_are_a_finding_and_kept_as_text() -> None:
    for arguments in (DEEP, DEEP_READABLE):
        decoder = decode(_tool_stream(arguments), "chat")
        state = decoder.state
        assert state.status == "complete"
        (call,) = state.tool_calls
        assert call.arguments.value == arguments and call.valid_json is False
        deep = [f for f in state.findings if f.code == "json_too_deep"]
        assert len(deep) == 1 and deep[0].severity == "error", state.findings
        assert f"deeper than {MAX_DEPTH} levels" in deep[0].message
        # The projections read it as text and can be dumped (inspect --json, --dump-state).
        assert parsed_tool_calls(state) == [{"name": "f", "arguments": arguments}]
        json.dumps(state_json(state))


def test_arguments_at_the_limit_are_read() -> None:
    arguments = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    state = decode(_tool_stream(arguments), "chat").state
    assert state.tool_calls[0].valid_json and "json_too_deep" not in _codes_of(state)


def _codes_of(state: object) -> list[str]:
    return [f.code for f in state.findings]  # type: ignore[attr-defined]


def test_a_deep_structured_answer_is_a_finding_not_a_failed_run() -> None:
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "a", "schema": {"type": "array"}},
        },
    }
    for answer in (DEEP, DEEP_READABLE):
        body = sse(_chunk({"content": answer}), _chunk({}, "stop"), "[DONE]")
        state = decode(body, "chat", request=request).state
        assert state.status == "complete" and state.error is None
        assert state.text == answer
        assert "json_too_deep" in _codes_of(state)
        assert "schema_invalid" not in _codes_of(state)


def test_deep_event_data_is_a_finding_and_the_stream_goes_on() -> None:
    body = sse(
        _chunk({"role": "assistant", "content": "Hi"}),
        '{"x": ' + DEEP_READABLE + "}",
        _chunk({"content": " there"}),
        _chunk({}, "stop"),
        "[DONE]",
    )
    decoder = decode(body, "chat")
    state = decoder.state
    assert state.text == "Hi there" and state.status == "complete"
    deep = [f for f in state.findings if f.code == "json_too_deep"]
    assert len(deep) == 1 and deep[0].severity == "error" and deep[0].item == 1
    assert decoder.payload(1) is None  # the inspector's tree shows it as not read


def test_a_deep_whole_body_is_a_finding() -> None:
    state = decode(("{" + '"a":' * 0 + '"x": ' + DEEP_READABLE + "}").encode(), "chat").state
    assert "json_too_deep" in _codes_of(state)


def test_a_nested_error_body_keeps_the_servers_message() -> None:
    body = b'{"error": {"message": "quota exceeded for key", "detail": ' + DEEP.encode() + b"}}"
    error = error_from_body(500, body, "application/json")
    assert error.message == "quota exceeded for key"
    from playground.transport.errors import _envelope_message

    assert _envelope_message(body, "application/json") == "quota exceeded for key"


def test_inspect_reads_deep_tool_arguments(tmp_path: Path) -> None:
    path = tmp_path / "deep.sse"
    path.write_bytes(_tool_stream("[" * 5000 + "]" * 5000))
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "playground", "inspect", str(path), "--route", "chat", *extra],
            cwd=ROOT,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert b"json_too_deep" in done.stdout
        assert b"Traceback" not in done.stderr


def test_deep_arguments_are_read_and_dumped_without_joining_them() -> None:
    """The finding, ``valid_json``, inspect's lines and the dump read the pieces: an 8 MB call
    joined whole had a second copy of itself beside its pieces (bench --only hostile)."""
    import io

    from playground.bench.hostile_inputs import deep_tool_arguments
    from playground.cli.inspect import _human
    from playground.protocol.json_out import write_json

    decoder = decode(deep_tool_arguments(2_000_000), "chat")
    state = decoder.state
    (call,) = state.tool_calls
    arguments = call.arguments
    assert "json_too_deep" in _codes_of(state) and call.valid_json is False
    shown = _human(decoder)
    assert f"    {'[' * 400}… (+{len(arguments) - 400} chars)\n" in shown
    out = io.StringIO()
    write_json(state_json(state, pieces=True), out.write)
    assert len(arguments.parts) > 1  # none of them joined the pieces
    assert json.loads(out.getvalue()) == json.loads(json.dumps(state_json(state)))
