"""One request of a cell read and decoded on a reader thread, as a panel's stream is.

The window's grid sends this way (``Runner(sender=send_on_reader_thread)``): with hundreds of
streams going, decoding each read on the event loop's thread (``cell_run.send_once``) made that
thread, the window's, do the work of every stream. Here the transport's ``ThreadedReader`` reads
with httpx's blocking client on a thread of its own and decodes each read there as it arrives
(``DecodeAhead``, the same ``StreamDecoder`` the panels use); the loop's thread takes what the
reader queued once a frame: the times, the status and the bytes for the capture journal, which
cost it next to nothing. The cell's outcome, its capture and its cancellation are the same as
``send_once``'s. ``playground eval`` keeps ``send_once``: with no window, a thread per stream
would only add switching.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Final

from playground.evaluate.cell_run import Attempt, DecodingSink, attempt_of, journaled
from playground.protocol.state import StreamState
from playground.protocol.stream import StreamDecoder
from playground.runs.writer import FileWriter
from playground.transport.decode_ahead import DecodeAhead
from playground.transport.reader import ThreadedReader
from playground.transport.spec import RequestSpec
from playground.transport.thread_priority import READER_NICE, lower_priority

__all__ = ["DRAIN_S", "send_on_reader_thread"]

# How often the loop's thread takes what a reader queued while the stream goes. The decoder's
# state is current all along (the reader thread decodes; the grid reads it), only the journal's
# lines wait, and the stream's end is taken at once: at 16 ms, 16 streams woke the window's
# thread a thousand times a second for nothing a person sees.
DRAIN_S: Final = 0.1
CONNECT_TIMEOUT_S: Final = 10.0
_helper: ThreadPoolExecutor | None = None


def _helper_thread() -> ThreadPoolExecutor:
    """One helper thread, below the window's thread in priority as a reader is: it starts the
    readers and works out finished cells' outcomes. One, not a pool: a round of 16 cells paced
    alike ends at once, and six helpers decoding its outcomes side by side kept the window's
    thread waiting for the GIL (its timer's lag doubled)."""
    global _helper
    if _helper is None:
        _helper = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix="evaluate-helper",
            initializer=lambda: lower_priority(threading.get_native_id(), READER_NICE),
        )
    return _helper


def _has_output(state: StreamState) -> bool:
    from playground.runs.outcome import has_output

    return has_output(state)


async def send_on_reader_thread(
    spec: RequestSpec,
    body: dict[str, Any] | None,
    capture: Path | None,
    client: object = None,
    *,
    first_byte_timeout: float = 120.0,
    on_decoder: Callable[[StreamDecoder], None] | None = None,
    writer: FileWriter | None = None,
) -> Attempt:
    """``send_once`` with the reading and decoding on a reader thread (``client`` is unused:
    the reader has a blocking client of its own); ``writer`` writes the capture's lines, fsync
    and rename on its thread (the caller flushes it before the captures are read)."""
    decoding = DecodingSink(spec.route, body, spec.secrets(), decoded_ahead=True)
    ahead = DecodeAhead(decoding.decoder, _has_output)
    if on_decoder is not None:
        on_decoder(decoding.decoder)
    tee = journaled(decoding, spec, capture, writer)
    reader = ThreadedReader(
        spec,
        connect_timeout=CONNECT_TIMEOUT_S,
        first_byte_timeout=first_byte_timeout,
        allow_insecure_key=spec.allow_insecure_key,
    )
    reader.ahead = ahead
    loop = asyncio.get_running_loop()
    try:
        # Thread.start waits until the new thread runs: with every core busy that was 3 ms on
        # average, 23 ms at worst, of the window's thread (2-core AMD EPYC); a helper waits.
        await loop.run_in_executor(_helper_thread(), reader.start, loop)
        while True:
            ended = await reader.wait(DRAIN_S)
            reader.drain(tee, None)
            if ended and reader.empty():
                break
    except asyncio.CancelledError:
        # Stop: the reader closes its connection at its next wait; what it decoded is kept,
        # nothing more is (close waits for a decode under way), and the capture ends cancelled.
        reader.cancel()
        ahead.close()
        decoding.cancelled = True
        reader.drain(tee, None)
        tee.end_if_open(decoding.record.end_time())
        raise
    if reader.error is not None:
        raise reader.error  # a bug below the transport: the runner's cell says so, not a hang
    # The outcome's figures read the whole decoded stream (about 2 ms a cell), and a round of
    # 16 cells paced alike ends at once: worked out off the window's thread, nothing else
    # touches the finished decoder.
    return await loop.run_in_executor(_helper_thread(), attempt_of, decoding)
