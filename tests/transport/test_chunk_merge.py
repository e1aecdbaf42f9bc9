"""transport.chunk_merge: h11 reads the same body (or the same breakage) through the merger."""

from __future__ import annotations

import itertools

import h11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.transport.chunk_merge import ChunkMerger

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def chunked(pieces: list[bytes], trailers: bytes = b"") -> bytes:
    body = b"".join(b"%x\r\n%b\r\n" % (len(p), p) for p in pieces if p)
    return body + b"0\r\n" + trailers + b"\r\n"


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


def h11_reads(reads: list[bytes]) -> tuple[bytes, list[tuple[bytes, bytes]] | None, str | None]:
    """What an h11 client gets from these reads, then EOF: (body, trailers or None, error)."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(
        h11.Request(method="POST", target="/", headers=[("Host", "x"), ("Content-Length", "0")])
    )
    conn.send(h11.EndOfMessage())
    body = bytearray()
    trailers = None
    try:
        for data in [*reads, b""]:
            conn.receive_data(data)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or event is h11.PAUSED:
                    break
                if isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    trailers = [(bytes(k), bytes(v)) for k, v in event.headers.raw_items()]
                    return bytes(body), trailers, None
    except h11.RemoteProtocolError as exc:
        return bytes(body), trailers, type(exc).__name__ + ": " + str(exc).split(":")[0]
    return bytes(body), trailers, "incomplete"


def merged(reads: list[bytes]) -> list[bytes]:
    """The reads as the wrapped network stream hands them to h11 (framing-only reads skipped)."""
    merger = ChunkMerger()
    return [out for out in (merger.feed(r) for r in reads) if out]


payloads = st.lists(st.binary(min_size=0, max_size=40), min_size=0, max_size=30)
cut_points = st.lists(st.integers(min_value=0, max_value=10_000), max_size=40)


@settings(max_examples=300, deadline=None)
@given(payloads, cut_points, st.sampled_from([b"", b"x-checksum: abc\r\n"]))
def test_any_reads_give_h11_the_same_body_and_trailers(
    pieces: list[bytes], cuts: list[int], trailers: bytes
) -> None:
    stream = HEAD + chunked(pieces, trailers)
    reads = split(stream, cuts)
    assert h11_reads(merged(reads)) == h11_reads(reads)
    assert h11_reads(reads)[2] is None


def test_one_read_of_many_chunks_becomes_one_chunk() -> None:
    events = [b'data: {"n": %d}\n\n' % i for i in range(300)]
    out = ChunkMerger().feed(HEAD + b"".join(b"%x\r\n%b\r\n" % (len(e), e) for e in events))
    payload = b"".join(events)
    assert out == HEAD + b"%x\r\n%b" % (len(payload), payload)


def test_chunk_extensions_and_whitespace_are_accepted_as_h11_does() -> None:
    stream = HEAD + b"5;name=value\r\nhello\r\n6 \t\r\n world\r\n0\r\n\r\n"
    reads = split(stream, [20, 95, 96, 97])
    assert h11_reads(merged(reads)) == (b"hello world", [], None)


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n",
        b"HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\ntransfer-encoding: chunked\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n",
    ],
)
def test_bodies_that_are_not_plain_chunked_pass_untouched(head: bytes) -> None:
    body = b"5\r\nhello\r\n0\r\n\r\n"
    merger = ChunkMerger()
    assert merger.feed(head + body) == head + body
    assert not merger.merging


def test_an_informational_response_is_passed_and_the_real_head_follows() -> None:
    early = b"HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n"
    stream = early + HEAD + chunked([b"abc", b"def"])
    reads = split(stream, [10, len(early) + 5])
    assert h11_reads(merged(reads)) == (b"abcdef", [], None)


def test_a_head_with_bare_line_feeds_is_found_where_h11_finds_it() -> None:
    head = b"HTTP/1.1 200 OK\ntransfer-encoding: chunked\n\n"
    # The payload holds the CRLF CRLF a naive head search would stop at.
    stream = head + chunked([b"a\r\n\r\nb", b"c"])
    assert h11_reads(merged([stream])) == h11_reads([stream]) == (b"a\r\n\r\nbc", [], None)


@settings(max_examples=400, deadline=None)
@given(
    payloads.filter(lambda p: any(p)),
    cut_points,
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from([b"X", b"\n", b"\r", b"1", b";", b" ", b"0\r\n\r\n", b""]),
    st.booleans(),
)
def test_a_corrupted_stream_breaks_or_survives_exactly_as_it_would_without_the_merger(
    pieces: list[bytes], cuts: list[int], at: int, byte: bytes, replace: bool
) -> None:
    stream = HEAD + chunked(pieces)
    where = len(HEAD) + at % (len(stream) - len(HEAD))
    bad = stream[:where] + byte + stream[where + (1 if replace else 0) :]
    reads = split(bad, cuts)
    want_body, want_trailers, want_error = h11_reads(reads)
    got_body, got_trailers, got_error = h11_reads(merged(reads))
    assert got_error == want_error  # the same kind of breakage, in h11's own words
    assert got_body == want_body
    assert got_trailers == want_trailers


def test_a_stream_cut_inside_a_chunk_is_incomplete_for_h11() -> None:
    stream = HEAD + b"a\r\n01234"
    body, trailers, error = h11_reads(merged([stream]))
    assert (body, trailers) == (b"01234", None)
    assert error is not None and "incomplete chunked read" in error


def test_a_huge_chunk_header_is_left_to_h11s_own_limit() -> None:
    stream = HEAD + b"5\r\nhello\r\n" + b"f" * 20_000
    body, _, error = h11_reads(merged(split(stream, list(range(0, 20_100, 1000)))))
    assert body == b"hello" and error is not None


def h11_cycles(reads: list[bytes], methods: list[str]) -> list[tuple[int, bytes]]:
    """(status, body) of each response h11 reads on one kept-alive connection, in order."""
    conn = h11.Connection(h11.CLIENT)
    out: list[tuple[int, bytes]] = []
    pending = [*reads, b""]

    def request(method: str) -> None:
        conn.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
        conn.send(h11.EndOfMessage())

    request(methods[0])
    status, body = 0, bytearray()
    while pending:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(pending.pop(0))
            continue
        if event is h11.PAUSED:
            break
        if isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            out.append((status, bytes(body)))
            status, body = 0, bytearray()
            if len(out) == len(methods):
                break
            conn.start_next_cycle()
            request(methods[len(out)])
    return out


response = st.one_of(
    st.tuples(st.just("chunked"), payloads, st.sampled_from([b"", b"x-sum: 1\r\n"])),
    st.tuples(st.just("length"), st.binary(max_size=60), st.just(b"")),
    st.tuples(st.just("head"), st.binary(max_size=60), st.just(b"")),
    st.tuples(st.just("empty"), st.just(b""), st.just(b"")),
)


def wire(kind: str, body: object, trailers: bytes) -> tuple[str, bytes]:
    if kind == "chunked":
        assert isinstance(body, list)
        return "POST", HEAD + chunked(body, trailers)
    assert isinstance(body, bytes)
    if kind == "empty":
        return "POST", b"HTTP/1.1 204 No Content\r\n\r\n"
    head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body)
    return ("HEAD", head) if kind == "head" else ("POST", head + body)


@settings(max_examples=300, deadline=None)
@given(st.lists(response, min_size=1, max_size=4), cut_points)
def test_a_kept_alive_connection_has_each_response_merged_and_framed_as_h11_frames_it(
    responses: list[tuple[str, object, bytes]], cuts: list[int]
) -> None:
    methods: list[str] = []
    stream = b""
    for kind, body, trailers in responses:
        method, data = wire(kind, body, trailers)
        methods.append(method)
        stream += data
    # One response per read at least (no pipelining: the next head comes after the next request),
    # so the merger is told HEAD exactly while that response is read.
    reads: list[tuple[int, bytes]] = []
    offset = 0
    for k, (kind, body, trailers) in enumerate(responses):
        size = len(wire(kind, body, trailers)[1])
        reads += [(k, piece) for piece in split(stream[offset : offset + size], cuts)]
        offset += size
    merger = ChunkMerger()
    handed: list[bytes] = []
    for k, piece in reads:
        merger.bodiless = methods[k] == "HEAD"
        out = merger.feed(piece)
        if out:
            handed.append(out)
    want = h11_cycles([piece for _, piece in reads], methods)
    assert len(want) == len(responses)
    assert h11_cycles(handed, methods) == want


_CHUNK_PIECES = st.lists(
    st.one_of(
        st.binary(max_size=12).map(lambda p: b"%x\r\n%b\r\n" % (len(p), p)),  # a whole chunk
        st.binary(max_size=6).map(lambda p: b"%X\r\n%b\r\n" % (len(p), p)),  # upper-case size
        st.sampled_from(
            [
                *(b"0\r\n\r\n", b"3;ext=1\r\nabc\r\n", b"03\r\nabc\r\n", b"+3\r\nabc\r\n"),
                *(b"\r\n", b"2\r\na\r\n\r\n", b"4\r\na\r\nb\r\n", b"10000000000000000\r\n"),
                b"5\r\nab",
            ]
        ),
    ),
    max_size=12,
)


@settings(max_examples=500, deadline=None)
@given(_CHUNK_PIECES, st.integers(0, 3))
def test_taking_whole_chunks_at_once_takes_what_one_at_a_time_takes(
    pieces: list[bytes], skip: int
) -> None:
    from playground.transport.chunk_merge import _one_by_one, _whole_chunks

    data = b"x" * skip + b"".join(pieces)
    at_once: list[bytes] = []
    one_by_one: list[bytes] = []
    assert _whole_chunks(data, skip, at_once) == _one_by_one(data, skip, one_by_one)
    assert at_once == one_by_one


def test_a_footer_broken_after_its_cr_at_a_reads_end_still_breaks_as_received() -> None:
    # "\r" ends one read as a footer's first byte; the next read brings "\r\n" where its "\n"
    # belongs. The CR already matched must reach h11 too: without it h11 sees a good footer.
    body = b"3\r\nabc\r\r\n0\r\n\r\n"
    reads = [HEAD + body[:7], body[7:]]
    assert reads[0].endswith(b"abc\r")
    assert h11_reads(merged(reads)) == h11_reads(reads)
    assert h11_reads(reads)[2] == "RemoteProtocolError: malformed chunk footer"
