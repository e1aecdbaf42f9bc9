"""The proxy in the path: events per second through it against direct, and the time it adds.

- ``proxy_vs_direct``: a bare httpx client reads one chat stream from the simulator at full
  speed, directly and through ``playground proxy`` (which decodes every read for its line, as it
  always does), alternately, in the same run; the best run of each, in events per second.
- ``proxy_added_ms_p99``: a paced upstream (one event every 10 ms, a fast model's 100 tokens/s)
  writes each event, stamped with the system-wide monotonic clock, to two connections at the
  same moment: one straight to the client, one through the proxy. The client reads both at once;
  an event's extra time is its arrival through the proxy minus its arrival direct; the figure is
  that extra's 99th percentile.

The simulator, the paced upstream and the proxy each run in a process of their own, so none
competes with the client for the GIL (as on a real machine, where the proxy is its own program).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from playground.bench.timing import percentile

Value = float | str
PACE_S = 0.010  # seconds between events of the paced upstream
_PROMPT = "Tell me a long story about a lighthouse keeper."


def _spawn(
    args: list[str], ready: Callable[[str], str | None]
) -> tuple[subprocess.Popen[str], str]:
    """``python -m playground ARGS`` in its own process; ``ready`` reads its first stdout line."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-m", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    found = ready(proc.stdout.readline().strip())
    if found is None:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"{' '.join(args[:2])} did not start")
    stdout = proc.stdout

    def drain() -> None:
        # Its later lines (the proxy's one per exchange) are read and dropped: a full pipe would
        # block the proxy's loop. The pipe is closed here at its end, not by the collector.
        with stdout:
            for _ in stdout:
                pass

    threading.Thread(target=drain, daemon=True).start()
    return proc, found


def _url(line: str) -> str | None:
    return line if line.startswith("http") else None


def _proxy_url(line: str) -> str | None:
    head, _, _ = line.removeprefix("proxy: ").partition(" -> ")
    return head if line.startswith("proxy: http") else None


def _stop(*procs: subprocess.Popen[str]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---- throughput ---------------------------------------------------------------------------
def _read_full_speed(base: str, n_events: int) -> tuple[float, bytes]:
    """One chat stream at the simulator's full speed: (seconds, body)."""
    import httpx

    body = {
        "model": "sim-fast",
        "stream": True,
        "messages": [{"role": "user", "content": _PROMPT}],
        "max_tokens": n_events * 2,
    }
    headers = {"X-Sim-Pace": "instant", "X-Sim-Tokens": str(n_events)}
    pieces: list[bytes] = []
    with httpx.Client(timeout=300.0) as client:
        started = time.perf_counter()
        with client.stream("POST", base + "/chat/completions", json=body, headers=headers) as r:
            r.raise_for_status()
            for chunk in r.iter_raw():
                pieces.append(chunk)
        elapsed = time.perf_counter() - started
    return elapsed, b"".join(pieces)


def _events(body: bytes) -> int:
    from playground.protocol.sse import SSEEvent, parse_all

    return sum(1 for item in parse_all(body) if type(item) is SSEEvent)


def throughput(sim: str, proxy: str, n_events: int, repeat: int) -> dict[str, Value]:
    best_direct = best_proxy = 0.0
    counts: set[int] = set()
    for _ in range(max(1, repeat)):
        for base in (sim, proxy):
            seconds, body = _read_full_speed(base, n_events)
            events = _events(body)
            counts.add(events)
            rate = events / seconds
            if base == sim:
                best_direct = max(best_direct, rate)
            else:
                best_proxy = max(best_proxy, rate)
    if len(counts) != 1:
        raise RuntimeError(f"the proxy lost events: {sorted(counts)}")
    return {
        "proxy_vs_direct": best_proxy / best_direct,
        "proxy_events_s": best_proxy,
        "direct_events_s": best_direct,
    }


# ---- added latency ------------------------------------------------------------------------
async def _stamped(start_ns: int, n: int) -> AsyncIterator[bytes]:
    for i in range(n):
        due = start_ns + round(i * PACE_S * 1e9)
        wait = (due - time.monotonic_ns()) / 1e9
        if wait > 0:
            await asyncio.sleep(wait)
        stamp = time.monotonic_ns()
        # A chat chunk, so the proxy decodes it as it decodes any chat stream.
        yield (
            b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":'
            b'{"content":"tok "}}],"t":%d,"n":%d}\n\n' % (stamp, i)
        )
    yield b"data: [DONE]\n\n"


def paced_app() -> Any:
    """The paced upstream: ``POST /v1/chat/completions?start=NS&n=N`` streams N stamped events."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    async def stream(request: Request) -> StreamingResponse:
        start = int(request.query_params["start"])
        n = int(request.query_params["n"])
        return StreamingResponse(_stamped(start, n), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", stream, methods=["POST"])])


def _serve_paced() -> int:
    """Child side: serve ``paced_app`` on a free loopback port; print its base URL."""
    from playground.sim.server import SimServer

    server = SimServer(app=paced_app()).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    finally:
        server.stop()
    return 0


async def _arrivals(base: str, start_ns: int, n: int) -> dict[int, int]:
    """Event number -> latency in ns (arrival of the read that completed it minus its stamp)."""
    import httpx

    out: dict[int, int] = {}
    rest = b""
    async with httpx.AsyncClient(timeout=60.0) as client:
        url = f"{base}/chat/completions?start={start_ns}&n={n}"
        async with client.stream("POST", url, content=b"{}") as r:
            async for chunk in r.aiter_raw():
                now = time.monotonic_ns()
                *whole, rest = (rest + chunk).split(b"\n\n")
                for event in whole:
                    _, sep, tail = event.partition(b'"t":')
                    if not sep:
                        continue
                    stamp, _, number = tail.partition(b',"n":')
                    out[int(number.rstrip(b"}"))] = now - int(stamp)
    return out


def _round(paced: str, proxy: str, n_events: int) -> tuple[list[float], list[float]]:
    """One paced stream read both ways at once: (extra ms per event, direct latency ms)."""

    async def both() -> tuple[dict[int, int], dict[int, int]]:
        start = time.monotonic_ns() + 300_000_000  # both connected before the first event
        direct, through = await asyncio.gather(
            _arrivals(paced, start, n_events), _arrivals(proxy, start, n_events)
        )
        return direct, through

    direct, through = asyncio.run(both())
    if set(direct) != set(through) or len(direct) != n_events:
        raise RuntimeError("the proxy lost paced events")
    extra = [(through[i] - direct[i]) / 1e6 for i in direct]
    return extra, [d / 1e6 for d in direct.values()]


def added_latency(paced: str, proxy: str, n_events: int, rounds: int) -> dict[str, Value]:
    """The best round's p99 (the project's best-of-N: the round least disturbed by other work
    on a shared machine, where a descheduled process adds milliseconds the proxy did not)."""
    best: tuple[float, list[float], list[float]] | None = None
    for _ in range(max(1, rounds)):
        extra, direct = _round(paced, proxy, n_events)
        p99 = percentile(extra, 0.99)
        if best is None or p99 < best[0]:
            best = (p99, extra, direct)
    assert best is not None
    p99, extra, direct = best
    return {
        "proxy_added_ms_p99": max(0.0, p99),
        "proxy_added_ms_p50": percentile(extra, 0.5),
        "direct_event_ms_p99": percentile(direct, 0.99),
    }


def proxy_figures(n_events: int, n_paced: int, repeat: int, rounds: int) -> dict[str, Value]:
    """``repeat`` full-speed runs each way, and ``rounds`` paced rounds of ``n_paced`` events."""
    sim, sim_url = _spawn(["playground", "sim", "--port", "0"], _url)
    procs = [sim]
    try:
        paced, paced_url = _spawn(["playground.bench.proxy", "--paced"], _url)
        procs.append(paced)
        proxy, proxy_url = _spawn(
            ["playground", "proxy", "--upstream", sim_url, "--port", "0"], _proxy_url
        )
        procs.append(proxy)
        paced_proxy, paced_proxy_url = _spawn(
            ["playground", "proxy", "--upstream", paced_url, "--port", "0"], _proxy_url
        )
        procs.append(paced_proxy)
        results = throughput(sim_url, proxy_url, n_events, repeat)
        results.update(added_latency(paced_url, paced_proxy_url, n_paced, rounds))
        return results
    finally:
        _stop(*procs)


if __name__ == "__main__":
    if sys.argv[1:] == ["--paced"]:
        sys.exit(_serve_paced())
