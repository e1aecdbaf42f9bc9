"""Every recorded stream in ../shared/captures decodes to its sidecar's `expected` block."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from protocol_helpers import CAPTURES, all_captures, decode, sidecar

from playground.protocol.state import StreamState

CAPTURE_FILES = all_captures(CAPTURES) if CAPTURES.is_dir() else []
IDS = [f"{p.parent.name}/{p.stem}" for p in CAPTURE_FILES]


def test_captures_are_all_found(captures_dir: Path) -> None:
    # The README promises 39 recorded streams; a missing folder must not make the suite vacuous.
    assert captures_dir == CAPTURES
    assert len(all_captures(captures_dir)) == len(CAPTURE_FILES) >= 39


def _calls(state: StreamState, server: bool) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "name": c.name, "arguments": c.arguments.value, "valid": c.valid_json}
        for c in state.tool_calls
        if c.server == server and c.choice == 0
    ]


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=IDS)
def test_capture_matches_sidecar(path: Path) -> None:
    expected = sidecar(path)["expected"]
    decoder = decode(path.read_bytes())
    state = decoder.state

    assert state.text == (expected["text"] or "")
    assert state.reasoning == (expected["reasoning"] or "")
    assert state.finish == expected["finish"]
    assert state.usage == expected["usage"]
    assert (state.error.message if state.error else None) == expected["error"]

    calls = _calls(state, server=False)
    assert [{k: c[k] for k in ("id", "name", "arguments")} for c in calls] == [
        {k: c[k] for k in ("id", "name", "arguments")} for c in expected["tool_calls"]
    ]
    for got, want in zip(calls, expected["tool_calls"]):
        if "arguments_valid_json" in want:
            assert got["valid"] is want["arguments_valid_json"]
    if "server_tool_calls" in expected:
        server = _calls(state, server=True)
        assert [{k: c[k] for k in ("id", "name", "arguments")} for c in server] == [
            {k: c[k] for k in ("id", "name", "arguments")} for c in expected["server_tool_calls"]
        ]

    if "choices" in expected:
        got_choices = [
            {"index": i, "text": c.text.value, "finish": c.finish}
            for i, c in sorted(state.choices.items())
        ]
        assert got_choices == expected["choices"]
    if "refusal" in expected:
        assert state.refusal == expected["refusal"]
    if "done_text" in expected:
        assert state.done_text == expected["done_text"]
    if "segments" in expected:
        assert state.segments == expected["segments"]
    if "content_block_types" in expected:
        assert list(state.blocks.values()) == expected["content_block_types"]
        results = [k for k in expected["content_block_types"] if k.endswith("_tool_result")]
        assert [d["type"] for d in state.block_data.values()] == results
    if "blocks_without_content_block_stop" in expected:
        assert sorted(state.open_blocks) == expected["blocks_without_content_block_stop"]
        assert "block_not_stopped" in {f.code for f in state.findings}
    if "thinking_signature_lengths" in expected:
        lengths = [len(v) for kind, v in state.signatures if kind == "signature"]
        assert lengths == expected["thinking_signature_lengths"]
    if "redacted_thinking_blocks" in expected:
        redacted = [v for kind, v in state.signatures if kind == "redacted"]
        assert len(redacted) == expected["redacted_thinking_blocks"]
        assert all(v and v not in state.reasoning for v in redacted)  # opaque, never shown as text
    if "images" in expected:
        _check_images(state, expected["images"])
    if "audio" in expected:
        audio = expected["audio"]
        assert state.audio is not None
        assert len(state.audio.data) == audio["decoded_bytes"]
        assert hashlib.sha256(bytes(state.audio.data)).hexdigest() == audio["sha256"]
        assert state.audio.chunks == audio["delta_events"]
        assert state.audio.format == audio["format_guess"].split()[0]


def _check_images(state: StreamState, expected: dict[str, Any]) -> None:
    from PIL import Image

    partials = [i for i in state.images if not i.final]
    finals = [i for i in state.images if i.final]
    assert len(partials) == len(expected["partials"])
    assert [i.final for i in state.images] == [False] * len(partials) + [True] * len(finals)
    for got, want in zip(partials, expected["partials"]):
        assert got.index == want["partial_image_index"]
        assert got.data[:4].hex() == want["magic"]
        assert got.output_format == want["output_format"]
        if want["decodes_to_complete_png"]:
            with Image.open(io.BytesIO(got.data)) as img:
                img.load()
                assert (got.width, got.height) == img.size
    if expected.get("final_item"):
        assert len(finals) == 1
        assert finals[0].output_format == expected["final_item"]["output_format"]


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=IDS)
def test_capture_status(path: Path) -> None:
    expected = sidecar(path)["expected"]
    state = decode(path.read_bytes()).state
    data = path.read_bytes()
    if expected["error"] is not None:
        assert state.status == "failed"
    elif not data.rstrip(b" ").endswith((b"\n\n", b"\r\n\r\n", b"\r\r")):
        # Two Anthropic recordings lack the final blank line: message_stop never dispatches.
        assert state.status == "truncated"
        codes = {f.code for f in state.findings}
        assert {"unterminated_event", "no_terminator"} <= codes
    elif expected["finish"] in ("length", "max_tokens", "response.incomplete"):
        assert state.status == "incomplete"
    else:
        assert state.status == "complete"


@pytest.mark.parametrize(
    "path", [p for p in CAPTURE_FILES if p.parent.name == "images"], ids=lambda p: p.stem
)
def test_images_route_reads_responses_image_generation(path: Path) -> None:
    # The images panel may use the Responses image_generation tool: --route images reads it too.
    whole = decode(path.read_bytes()).state
    forced = decode(path.read_bytes(), route="images")
    assert forced.route == "images"
    state = forced.state
    assert [(i.index, i.final, i.data) for i in state.images] == [
        (i.index, i.final, i.data) for i in whole.images
    ]
    assert (state.text, state.usage, state.finish, state.status) == (
        whole.text,
        whole.usage,
        whole.finish,
        whole.status,
    )
    assert state.findings == whole.findings
