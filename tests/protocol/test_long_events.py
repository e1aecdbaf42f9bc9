"""Long events (partial images) are parsed from their bytes, and read exactly as short ones."""

from __future__ import annotations

import base64
import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import decode

from playground.protocol.event_json import LONG_EVENT as _LONG_EVENT
from playground.protocol.event_json import loads_long
from playground.protocol.sse import SSEEvent, parse_all

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400).decode()


def image_event(prompt: bytes, *, named: bool) -> bytes:
    body = json.dumps({"type": "image_generation.partial_image", "b64_json": PNG}).encode()
    body = body[:-1] + b',"revised_prompt":"' + prompt + b'","partial_image_index":0}'
    name = b"event: image_generation.partial_image\n" if named else b""
    return name + b"data: " + body + b"\n\n"


@pytest.mark.parametrize("named", [True, False])
@pytest.mark.parametrize("read", [65536, 4096, 1000])
def test_a_long_event_reads_as_its_text_does(named: bool, read: int) -> None:
    event = image_event("caf\u00e9 \U0001f600".encode(), named=named)
    assert len(event) > _LONG_EVENT
    decoder = decode(event, "images", cuts=list(range(read, len(event), read)))
    (image,) = decoder.state.images
    assert decoder.payload(0) == json.loads(event.split(b"data: ", 1)[1])
    assert image.b64 is None or image.b64 == PNG
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [f for f in decoder.findings if f.code == "invalid_json"]


def test_invalid_utf8_in_a_long_event_reads_as_replacement_characters() -> None:
    event = image_event(b"bad \xff byte", named=True)
    decoder = decode(event, "images", cuts=[70_000])
    (image,) = decoder.state.images
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"  # parsed despite the bad byte, as text is
    assert [f.code for f in decoder.findings if f.code == "invalid_utf8"] == ["invalid_utf8"]


def test_a_long_event_that_is_not_json_is_reported() -> None:
    event = b"data: {" + b"x" * (_LONG_EVENT + 10) + b"\n\n"
    decoder = decode(event, "images", cuts=[5000])
    assert [f.code for f in decoder.findings if f.code == "invalid_json"] == ["invalid_json"]


# -- a long base64 string taken out of the JSON and put back (event_json._loads_spliced) --------

_LETTERS = base64.b64encode(bytes(range(256)) * 300).decode()  # 102,400 letters, no padding
_TWISTS = {
    "plain": lambda s: s,
    "padded": lambda s: s[:-2] + "==",
    "url-safe": lambda s: s.replace("+", "-").replace("/", "_"),
    "escaped slash": lambda s: s[:5000] + "\\/" + s[5000:],  # valid JSON, and the value has "/"
    "escaped unicode": lambda s: s[:5000] + "\\u0041" + s[5000:],
    "inner padding": lambda s: s[:5000] + "=" + s[5000:],
    "control byte": lambda s: s[:5000] + "\x01" + s[5000:],  # not JSON at all
    "non-ASCII": lambda s: s[:5000] + "\u00e9" + s[5000:],
    "space": lambda s: s[:5000] + " " + s[5000:],
}
_SMALL = st.text(alphabet=st.sampled_from('ab"\\/\u00e9\U0001f600 =:,{}[]'), max_size=8)


def _event_with(body: str) -> SSEEvent:
    (item,) = parse_all(b"event: x\ndata: " + body.encode() + b"\n\n")
    assert isinstance(item, SSEEvent)
    return item


@given(
    twist=st.sampled_from(sorted(_TWISTS)),
    before=st.lists(_SMALL, max_size=3),
    after=st.lists(_SMALL, max_size=3),
    nested=st.booleans(),
    as_key=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_a_long_string_is_read_exactly_as_orjson_reads_it(
    twist: str, before: list[str], after: list[str], nested: bool, as_key: bool
) -> None:
    long = '"' + _TWISTS[twist](_LETTERS) + '"'
    parts = [f'"b{i}":{json.dumps(text)}' for i, text in enumerate(before)]
    parts.append(f"{long}:1" if as_key else f'"b64_json":{long}')
    parts += [f'"a{i}":[{json.dumps(text)}]' for i, text in enumerate(after)]
    body = "{" + ",".join(parts) + "}"
    if nested:
        body = '{"item":' + body + ',"n":[1,2]}'
    item = _event_with(body)
    try:
        expected = orjson.loads(body.encode())
    except orjson.JSONDecodeError:
        with pytest.raises(orjson.JSONDecodeError):
            loads_long(item)
        return
    assert loads_long(item) == expected


def test_strings_that_only_look_like_the_long_one_are_read_as_orjson_does() -> None:
    stand_in = "playground:long-base64-string"
    bodies = [
        # The run of letters inside another string, between escaped quotes.
        '{"a":"x\\"' + _LETTERS + '\\"y","b64_json":"' + _LETTERS + '"}',
        # A value that is the stand-in's own text, before and after the long string.
        '{"a":"' + stand_in + '","b64_json":"' + _LETTERS + '"}',
        '{"b64_json":"' + _LETTERS + '","a":"\\u0070layground:long-base64-string"}',
        # An escaped backslash right before the opening quote: the quote is a real one.
        '{"a":"\\\\","b64_json":"' + _LETTERS + '"}',
        # Two keys of the same name: the last wins, as orjson has it.
        '{"b64_json":"' + _LETTERS + '","b64_json":"small"}',
    ]
    for body in bodies:
        assert loads_long(_event_with(body)) == orjson.loads(body.encode()), body


def _count_letters(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each count of base64 letters looked at (those it was told are known left out)."""
    from playground.protocol import media

    looked: list[int] = []
    real = media._letters

    def counting(piece: Any, size: int, skip_from: int = 0, skip_to: int = 0) -> int | None:
        looked.append(size - max(0, skip_to - skip_from))
        return real(piece, size, skip_from, skip_to)

    monkeypatch.setattr(media, "_letters", counting)
    return looked


def test_the_fold_does_not_count_the_letters_the_json_reader_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked = _count_letters(monkeypatch)
    event = image_event(b"a prompt", named=True)
    decoder = decode(event, "images", cuts=[70_000])
    (image,) = decoder.state.images
    assert len(looked) == 1  # once, by the JSON reader
    assert image.nbytes == len(base64.b64decode(PNG))
    assert not [f for f in decoder.findings if f.code == "bad_base64"]


@pytest.mark.parametrize("read", [16_384, 65_536])
def test_base64_that_came_in_long_reads_is_not_looked_at_again(
    monkeypatch: pytest.MonkeyPatch, read: int
) -> None:
    looked = _count_letters(monkeypatch)
    event = image_event(b"a prompt", named=True)
    decoder = decode(event, "images", cuts=list(range(read, len(event), read)))
    (image,) = decoder.state.images
    # Only the reads where the string begins and ends (they hold JSON too) are looked at.
    assert looked and looked[0] <= 2 * read
    assert image.nbytes == len(base64.b64decode(PNG))
    assert not [f for f in decoder.findings if f.code == "bad_base64"]


@pytest.mark.parametrize("where", [0.1, 0.5, 0.999])
def test_a_stray_byte_in_a_long_read_is_still_found(where: float) -> None:
    bad = int(len(PNG) * where)
    body = json.dumps({"type": "image_generation.partial_image", "b64_json": PNG}).encode()
    at = body.index(PNG.encode()) + bad
    body = body[:at] + b"*" + body[at + 1 :]
    event = b"event: image_generation.partial_image\ndata: " + body + b"\n\n"
    decoder = decode(event, "images", cuts=list(range(16_384, len(event), 16_384)))
    assert [f.code for f in decoder.findings if f.code == "bad_base64"] == ["bad_base64"]
