"""Any split of any capture into chunks gives the same items, events, findings and final state."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import CAPTURES, all_captures, decode, snapshot

CAPTURE_FILES = all_captures(CAPTURES) if CAPTURES.is_dir() else []
IDS = [f"{p.parent.name}/{p.stem}" for p in CAPTURE_FILES]
_WHOLE = {p: snapshot(decode(p.read_bytes())) for p in CAPTURE_FILES}


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=IDS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_gives_the_same_state(path: Path, data: st.DataObject) -> None:
    raw = path.read_bytes()
    cuts = sorted(
        set(
            data.draw(
                st.lists(st.integers(min_value=1, max_value=max(1, len(raw) - 1)), max_size=40)
            )
        )
    )
    assert snapshot(decode(raw, cuts=cuts)) == _WHOLE[path]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 4096])
def test_fixed_piece_sizes(size: int) -> None:
    # Small captures byte by byte too: CR/LF and UTF-8 sequences split everywhere.
    for path in CAPTURE_FILES:
        raw = path.read_bytes()
        if size < 8 and len(raw) > 12_000:
            continue
        cuts = list(range(size, len(raw), size))
        assert snapshot(decode(raw, cuts=cuts)) == _WHOLE[path], path.name
