"""Chat's text-chunk template (fastpath.py) folds exactly as the full parse does, on any mix."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from protocol_helpers import decode, snapshot

import playground.protocol as protocol
from playground.protocol.decoders.chat import ChatDecoder
from playground.protocol.fastpath import Template, build_template, string_body, template_texts
from playground.protocol.template_match import plain_text, run_array

HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",'
TAIL = '"logprobs":null,"finish_reason":null}]}'


def plain(content: str, *, ascii_only: bool = False, other_id: bool = False) -> str:
    body = json.dumps(content, ensure_ascii=ascii_only)
    head = HEAD.replace("chatcmpl-1", "chatcmpl-2") if other_id else HEAD
    return head + '"choices":[{"index":0,"delta":{"content":' + body + "}," + TAIL


def raw_middle(middle: str) -> str:
    """A chunk whose content literal is ``middle`` as written (possibly not a valid string)."""
    return HEAD + '"choices":[{"index":0,"delta":{"content":"' + middle + '"},' + TAIL


OTHERS = [
    HEAD + '"choices":[{"index":0,"delta":{"role":"assistant","content":""},' + TAIL,
    HEAD + '"choices":[{"index":0,"delta":{"reasoning":"hmm"},' + TAIL,
    HEAD + '"choices":[{"index":1,"delta":{"content":"other choice"},' + TAIL,
    HEAD + '"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}',
    HEAD + '"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}',
    '{"choices":[{"index":0,"delta":{"content":"compact"}}]}',
    '{"error":{"message":"boom"}}',
    "[DONE]",
    "not json",
]
MIDDLES = ['a","role":"x', "\\", 'x\\"', "\n", "a\\u00e9", "\\ud800", 'q\\"', "\\n", "\x7f", ""]

chunk = st.one_of(
    st.builds(plain, st.text(max_size=12), ascii_only=st.booleans(), other_id=st.booleans()),
    st.builds(plain, st.text(alphabet="ab \u00e9\U0001f600", max_size=6)),
    st.sampled_from(OTHERS),
    st.sampled_from(MIDDLES).map(raw_middle),
)


def body(chunks: list[str], event_name: bool) -> bytes:
    out = []
    for i, data in enumerate(chunks):
        name = "event: other\n" if event_name and i % 7 == 3 else ""
        out.append(f"{name}data: {data}\n\n")
    return "".join(out).encode()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(chunk, min_size=1, max_size=40),
    st.booleans(),
    st.lists(st.integers(min_value=1, max_value=4000), max_size=6),
)
def test_template_path_equals_full_parse(chunks: list[str], named: bool, cuts: list[int]) -> None:
    data = body(chunks, named)
    points = sorted({c for c in cuts if c < len(data)})
    fast = snapshot(decode(data, "chat", cuts=points))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ChatDecoder, "plain_text", lambda self, ev, payload: None)
        slow = snapshot(decode(data, "chat", cuts=points))
    assert fast == slow


def test_long_plain_stream_takes_the_template_path() -> None:
    chunks = [plain(t) for t in ["Hel", "lo", " \u00e9", "\n", ' "q"', "\\"] * 50]
    data = body(chunks, False) + b"data: [DONE]\n\n"
    decoder = decode(data, "chat", cuts=list(range(0, len(data), 97)))
    assert decoder._tpl_tries == 1  # built once, matched every chunk after
    assert decoder.state.text == "".join(["Hel", "lo", " \u00e9", "\n", ' "q"', "\\"] * 50)
    assert len(decoder.state.choices[0].text.origins) == 300


def test_build_template_refuses_a_content_key_elsewhere() -> None:
    data = '{"x":{"content":"hi"},"choices":[{"index":0,"delta":{"content":"hi"}}]}'
    payload = json.loads(data)
    assert build_template(data, payload) is None  # the first "content" is not the delta's


def test_string_body() -> None:
    assert string_body("plain \u00e9") == "plain \u00e9"
    assert string_body('a\\nb\\u00e9\\"') == 'a\nb\u00e9"'
    assert string_body('a"b') is None
    assert string_body("\\") is None
    assert string_body("tab\there") is None  # raw control characters are not JSON


def _template() -> Template:
    data = plain("seed")
    tpl = build_template(data, json.loads(data))
    assert tpl is not None
    return tpl


def _raw(middle: bytes) -> bytes:
    head, tail, *_ = _template()
    return head + middle + tail


def test_a_run_of_plain_chunks_gives_every_text_at_once() -> None:
    raws = [_raw(m) for m in [b"Hel", b"lo", b" \xc3\xa9", b"\\n", b"", b"\\u00e9\\t"]]
    texts = ["Hel", "lo", " \u00e9", "\n", "", "\u00e9\t"]
    assert template_texts(raws, _template()) == (texts, sum(map(len, raws)))


@pytest.mark.parametrize(
    "odd",
    [
        _raw(b'say \\"hi\\"'),  # an escaped quote: left to the one-by-one path
        _raw(b'a","b'),  # a quote that would split one middle in two
        _raw(b"a\\"),  # a backslash that would escape the array's own quote
        _raw(b"\xc3"),  # invalid UTF-8
        _raw(b"tab\there"),  # a raw control character
        _raw(b"a\n\ndata: b"),  # two events' worth of bytes in one raw: not one line
        b"id: 7\n" + _raw(b"x"),  # another field before the data line
        _raw(b"x")[:-2] + b"\nid: 7\n\n",  # and after it
        _raw(b"x")[:-3] + b"\n\n",  # a different tail
        b"data: [DONE]\n\n",
        _template()[0] + _template()[1][1:],  # head and tail overlap (their quote shared)
    ],
)
def test_a_run_with_one_odd_chunk_is_refused(odd: bytes) -> None:
    raws = [_raw(b"one"), odd, _raw(b"two")]
    assert template_texts(raws, _template()) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet='ab"\\\n\t\u00e9\U0001f600u0{}:,', max_size=8), min_size=1))
def test_a_run_is_read_exactly_as_one_by_one_or_refused(middles: list[str]) -> None:
    raws = [_raw(m.encode()) for m in middles]
    run = template_texts(raws, _template())
    one_by_one = [string_body(m) for m in middles]
    if run is not None:
        assert run == (one_by_one, sum(map(len, raws)))
    elif '"' not in "".join(middles) and "\\" not in "".join(middles):
        # Without quotes or backslashes, only a raw control character makes a run fail.
        assert any(text is None for text in one_by_one)


# template_match.py run by the interpreter (its C-call path), beside the installed build (its
# native loop, when compiled): both must give the same array, or refuse the same runs.
SOURCE_MATCH = protocol.load_source("template_match", "_template_match_from_source")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet='ab"\\\n\u00e9u0{}:,', max_size=6), min_size=1, max_size=8),
    st.lists(st.sampled_from([b"", b"x", b"\n\n", b"data: ", b"id: 1\n"]), max_size=8),
)
def test_the_source_and_the_build_match_a_run_alike(middles: list[str], junk: list[bytes]) -> None:
    raws = [_raw(m.encode()) for m in middles]
    for i, extra in enumerate(junk):  # some raws spoiled: at the start, the end, or replaced
        j = i % len(raws)
        raws[j] = [extra + raws[j], raws[j] + extra, extra][i % 3]
    assert SOURCE_MATCH.run_array(raws, _template()) == run_array(raws, _template())
    assert not SOURCE_MATCH._COMPILED


@pytest.mark.parametrize(
    "between",
    [
        b"id: \xff\n\n",  # an event with no data: no item carries these bytes
        b": note \xc3(\n",  # a comment (its own item)
        b"\n\n",  # stray blank lines (ASCII: nothing to report)
    ],
)
@pytest.mark.parametrize("read", [4096, 37, 1])
def test_invalid_utf8_between_template_chunks_is_still_found(between: bytes, read: int) -> None:
    chunks = [plain(t) for t in ["Hel", "lo", " \u00e9"] * 20]
    events = [f"data: {c}\n\n".encode() for c in chunks]
    data = b"".join(events[:30]) + between + b"".join(events[30:]) + b"data: [DONE]\n\n"
    decoder = decode(data, "chat", cuts=list(range(read, len(data), read)))
    assert decoder.state.text == "".join(["Hel", "lo", " \u00e9"] * 20)
    found = [f for f in decoder.findings if f.code == "invalid_utf8"]
    if between == b"\n\n":
        assert found == []
    else:
        assert len(found) == 1
        assert (
            str(
                sum(map(len, events[:30]))
                + between.index(b"\xff" if b"\xff" in between else b"\xc3")
            )
            in found[0].message
        )
    assert decoder._tpl_tries == 1


def test_invalid_utf8_inside_a_template_chunk_is_found_and_read_as_the_full_path_does() -> None:
    events = [f"data: {plain(t)}\n\n".encode() for t in ["Hel", "lo", "x", "y"] * 5]
    events[9] = events[9].replace(b'"content":"lo"', b'"content":"l\xffo"')
    data = b"".join(events) + b"data: [DONE]\n\n"
    for read in (4096, 29):
        decoder = decode(data, "chat", cuts=list(range(read, len(data), read)))
        assert "l\ufffdo" in decoder.state.text
        assert [f.item for f in decoder.findings if f.code == "invalid_utf8"] == [9]


# What a middle may hold: plain characters, a quote, backslash escapes (`\\n` the one read in
# place), control characters, multi-byte UTF-8 and bytes that are not UTF-8.
_MIDDLE_BYTES = st.lists(
    st.sampled_from(
        [
            *(
                b"a",
                b" ",
                b"\x7f",
                b'"',
                b"\\n",
                b"\\t",
                b"\\\\",
                b"\\u00e9",
                b"\\",
                b"\n",
                b"\x1f",
            ),
            *(b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xe2\x80\x94", b"\xc3", b"\x80", b"\xed\xa0\x80"),
        ]
    ),
    max_size=6,
).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(_MIDDLE_BYTES, min_size=1, max_size=8))
@example([b"\xc3", b"\x80"])  # one character cut between two events: valid only when joined
def test_plain_text_reads_what_the_array_parse_reads_or_declines(middles: list[bytes]) -> None:
    # plain_text reads a run's middles without JSON; whatever it reads must be exactly what
    # parsing the run as a JSON array gives, token for token, in the build and the source alike.
    got = plain_text(list(middles))
    assert SOURCE_MATCH.plain_text(list(middles)) == got
    try:
        parsed = json.loads(b'["' + b'","'.join(middles) + b'"]')
    except ValueError:
        parsed = None
    if got is not None:
        text, sizes = got
        assert parsed is not None and len(parsed) == len(middles)
        assert text == "".join(parsed)
        assert sizes == [len(one) for one in parsed]
    elif parsed is not None and len(parsed) == len(middles):
        # Declined although JSON reads it: only for an escape other than `\\n` or a surrogate.
        assert any(b"\\" in m and m.replace(b"\\n", b"").count(b"\\") for m in middles) or any(
            b"\xed\xa0" in m for m in middles
        )


def test_plain_text_reads_the_common_tokens() -> None:
    middles = [b"Hello", b" caf\xc3\xa9", b"\\n", b"", b" \xf0\x9f\x98\x80", b"a\\nb"]
    assert plain_text(middles) == ("Hello café\n 😀a\nb", [5, 5, 1, 0, 2, 3])
