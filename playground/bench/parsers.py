"""SSE framing throughput: our parser against httpx-sse, the openai SDK and sseclient-py."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from functools import partial
from types import ModuleType
from typing import ClassVar

from playground.bench.streams import chat_stream, fixed_chunks, random_chunks
from playground.bench.timing import best_of
from playground.protocol import is_compiled, load_source_parser, sse

Runner = Callable[[list[bytes]], int]


def source_parser() -> ModuleType:
    """``sse.py`` run by the interpreter, as an install without a C compiler runs it: measured
    beside the installed parser so the table shows what the compiled build adds."""
    return load_source_parser("playground.bench._sse_source")


def arrivals(chunks: list[bytes]) -> list[tuple[float, bytes]]:
    """Each chunk with its arrival time, as the transport hands reads to the parser (the time is
    stamped when the read completes, not by the parser); made before the clock starts, like the
    peers' chunk lists."""
    return [(float(i), chunk) for i, chunk in enumerate(chunks)]


def run_ours(timed: list[tuple[float, bytes]], module: ModuleType = sse) -> int:
    """Our incremental parser: events dispatched (comments and the rest are items too)."""
    event_type = module.SSEEvent
    parser = module.SSEParser()
    feed = parser.feed
    n = 0
    for t, chunk in timed:
        for item in feed(chunk, t):
            if type(item) is event_type:
                n += 1
    n += sum(type(item) is event_type for item in parser.finish(float(len(timed))))
    return n


class _TextResponse:
    """What ``httpx_sse.EventSource`` reads from an ``httpx.Response``: its headers and
    ``iter_text()``, decoded as httpx does it (incremental UTF-8, empty texts skipped)."""

    headers: ClassVar[dict[str, str]] = {"content-type": "text/event-stream"}

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def iter_text(self) -> Iterator[str]:
        decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        for chunk in self._chunks:
            text = decode(chunk)
            if text:
                yield text
        text = decode(b"", True)
        if text:
            yield text


def run_httpx_sse(chunks: list[bytes]) -> int:
    """httpx-sse as its users run it: ``EventSource(response).iter_sse()``, i.e. its
    ``SSELineDecoder`` and ``SSEDecoder`` driven by its own generators, over httpx's text."""
    from httpx_sse import EventSource

    source = EventSource(_TextResponse(chunks))  # type: ignore[arg-type]
    return sum(1 for _ in source.iter_sse())


def run_openai(chunks: list[bytes]) -> int:
    """The openai SDK's ``SSEDecoder.iter_bytes`` (its framing, before JSON and models)."""
    from openai._streaming import SSEDecoder

    return sum(1 for _ in SSEDecoder().iter_bytes(iter(chunks)))


def run_sseclient(chunks: list[bytes]) -> int:
    """sseclient-py's ``SSEClient`` over an iterator of chunks."""
    from sseclient import SSEClient

    return sum(1 for _ in SSEClient(iter(chunks)).events())


PEERS: dict[str, Runner] = {
    "httpx_sse": run_httpx_sse,
    "openai": run_openai,
    "sseclient": run_sseclient,
}


def measure(chunks: list[bytes], peers: list[str], repeat: int) -> dict[str, tuple[float, int]]:
    """Seconds (best of ``repeat``) and events seen, for ours and each peer, on the same chunks.

    Runs are interleaved (ours, peer, ours, peer...) so a burst of load from elsewhere on the
    machine hits every contender alike.
    """
    timed = arrivals(chunks)
    inputs: dict[str, Callable[[], int]] = {"ours": partial(run_ours, timed)}
    # Warm up: imports and first-call costs stay out of the timing.
    run_ours(arrivals(chunks[:50]))
    if is_compiled(sse):
        inputs["source"] = partial(run_ours, timed, source_parser())
        run_ours(arrivals(chunks[:50]), source_parser())
    inputs.update({p: partial(PEERS[p], chunks) for p in peers})
    for peer in peers:
        PEERS[peer](chunks[:50])
    best: dict[str, tuple[float, int]] = {}
    for _ in range(repeat):
        for name, fn in inputs.items():
            seconds, events = best_of(fn, 1)
            old = best.get(name)
            if old is None or seconds < old[0]:
                best[name] = (seconds, events)
    return best


def parser_figures(n_events: int, repeat: int) -> dict[str, float]:
    """The four framing figures: our throughput over each peer's, on the same bytes.

    With the mypyc build installed, ``parser_source_mb_s_*`` is the same source run by the
    interpreter, in the same run (the run's footer names the build: ``runner.machine``).
    """
    data = chat_stream(n_events)
    figures: dict[str, float] = {}
    mb = len(data) / 1e6
    plans = [
        ("4k", fixed_chunks(data, 4096), ["httpx_sse", "openai"]),
        ("30b", random_chunks(data, 15, 45), ["httpx_sse", "sseclient"]),
    ]
    for label, chunks, peers in plans:
        results = measure(chunks, peers, repeat)
        ours_s, ours_n = results["ours"]
        figures[f"parser_mb_s_{label}"] = mb / ours_s
        if "source" in results:
            source_s, source_n = results["source"]
            if source_n != ours_n:
                raise RuntimeError(f"the source parser saw {source_n} events, we saw {ours_n}")
            figures[f"parser_source_mb_s_{label}"] = mb / source_s
        for peer in peers:
            peer_s, peer_n = results[peer]
            if peer_n != ours_n:
                raise RuntimeError(f"{peer} saw {peer_n} events, we saw {ours_n}")
            figures[f"{peer}_mb_s_{label}"] = mb / peer_s
            figures[f"parser_vs_{peer}_{label}"] = peer_s / ours_s
    return figures
