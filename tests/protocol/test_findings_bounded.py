"""Findings are bounded: past the first STORED_PER_CODE of a code a run counts them exactly and
keeps none, and every affected event still carries its severity (the timeline's badge)."""

from __future__ import annotations

from protocol_helpers import decode

from playground.cli.inspect import _human
from playground.protocol.findings import RANK, STORED_PER_CODE
from playground.protocol.projection import state_json

EVENTS = 20_000


def test_a_flood_of_unreadable_events_is_counted_not_stored() -> None:
    decoder = decode(b"data:x\n\n" * EVENTS, "chat")
    state = decoder.state
    invalid = [f for f in state.findings if f.code == "invalid_json"]
    assert len(invalid) == STORED_PER_CODE
    assert [f.item for f in invalid] == list(range(STORED_PER_CODE))  # the first ones
    assert state.findings_omitted == {"invalid_json": EVENTS - STORED_PER_CODE}
    # Every event still says it has an error, stored or only counted.
    assert decoder.omitted_rank(EVENTS - 1) == RANK["error"]
    assert decoder.omitted_rank(STORED_PER_CODE) == RANK["error"]
    assert decoder.omitted_rank(0) == 0 and decoder.findings_for(0)
    assert state_json(state)["findings_omitted"] == {"invalid_json": EVENTS - STORED_PER_CODE}
    assert f"and {EVENTS - STORED_PER_CODE:,} more invalid_json" in _human(decoder)


def test_each_code_has_its_own_quota() -> None:
    deep = "[" * 300 + "]" * 300
    body = b"data:x\n\n" * 120 + f'data: {{"a": {deep}}}\n\n'.encode() * 70
    state = decode(body, "chat").state
    codes = [f.code for f in state.findings]
    assert codes.count("invalid_json") == STORED_PER_CODE
    assert codes.count("json_too_deep") == STORED_PER_CODE
    assert state.findings_omitted == {"invalid_json": 70, "json_too_deep": 20}


def test_a_few_findings_are_all_kept() -> None:
    state = decode(b"data:x\n\n" * 3, "chat").state
    assert [f.code for f in state.findings].count("invalid_json") == 3
    assert state.findings_omitted == {} and "findings_omitted" not in state_json(state)
