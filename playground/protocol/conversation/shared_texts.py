"""One copy of each long text a thread holds: its turns, the requests it sent, the answers.

Every request is parsed back from the body the form builds, so each Send made a fresh copy of
every earlier turn's text: the thread's turns, the request kept for the dump and the answer's
own buffer each held one. A 50-answer session of 2,000 tokens then kept the conversation about
three times over (measured with tracemalloc: 2.5 MB of the 11.8 MB the heap grew by). Equal
strings are swapped for the one already held, so each text is kept once however many requests
carry it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from playground.protocol.conversation.model import Part, Text, Thinking, Turn

__all__ = ["LONG", "long_texts", "shared_value", "with_texts_of"]

LONG = 64  # shorter strings cost less to copy than to look up


def long_texts(turns: Iterable[Turn]) -> dict[str, str]:
    """The long texts of ``turns``' text and thinking parts, each mapped to itself."""
    known: dict[str, str] = {}
    for turn in turns:
        for part in turn.parts:
            if isinstance(part, (Text, Thinking)) and len(part.text) >= LONG:
                known[part.text] = part.text
    return known


def with_texts_of(turns: Iterable[Turn], known: dict[str, str]) -> list[Turn]:
    """``turns`` with each long text equal to one in ``known`` replaced by that one (the same
    turns otherwise; a turn none of whose texts changed is returned as it was)."""
    shared: list[Turn] = []
    for turn in turns:
        parts = tuple(_part_sharing(part, known) for part in turn.parts)
        same = all(new is old for new, old in zip(parts, turn.parts, strict=True))
        shared.append(turn if same else dataclasses.replace(turn, parts=parts))
    return shared


def _part_sharing(part: Part, known: dict[str, str]) -> Part:
    if isinstance(part, (Text, Thinking)) and len(part.text) >= LONG:
        held = known.get(part.text)
        if held is not None and held is not part.text:
            return dataclasses.replace(part, text=held)
    return part


def shared_value(
    value: Any, last: dict[str, str], known: dict[str, str], previous: Any = None
) -> Any:
    """``value`` (a JSON value) with each long string in ``last`` replaced by that one, and each
    object or array equal to the one at its place in ``previous`` (the request before) replaced
    by that one, so each turn is kept once, not once per request after it (the requests grew
    with the square of the thread: 13 MB after 50 answers of 2,000 tokens, and their message
    objects alone 1.1 MB once the texts were shared). ``known`` gets this value's long strings.
    The values are read, never changed in place: sharing them is safe."""
    if isinstance(value, str):
        if len(value) < LONG:
            return value
        value = last.get(value, value)
        known[value] = value
        return value
    if isinstance(value, dict):
        before = previous if isinstance(previous, dict) else {}
        made = {k: shared_value(v, last, known, before.get(k)) for k, v in value.items()}
        return previous if made == previous else made
    if isinstance(value, list):
        earlier = previous if isinstance(previous, list) else []
        listed = [
            shared_value(v, last, known, earlier[i] if i < len(earlier) else None)
            for i, v in enumerate(value)
        ]
        return previous if listed == previous else listed
    return value
