"""DecodeAhead: a live run's bytes decoded and folded into its state on the reader thread.

Why: decoding on the UI thread made every frame pay for what arrived since the last one (about
2.5 us an event at full loopback speed), and a frame that had to stop at its time budget left
the rest queued, so the window fell behind the stream. Here the reader thread feeds each read
to the run's ``StreamDecoder`` as soon as it has it; the UI thread takes what changed once per
frame, while it holds ``lock`` (``ThreadedReader.hold``), so it never sees the state half way
through a read. The timeline items each read completed are kept in read order: the session
takes one batch per ``on_chunk`` it replays, in the same order as every other sink sees them.

Everything the UI thread may change in the decoder (``cancel``) goes through ``close`` under
the same lock, after which nothing more is fed.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from playground.protocol.figures import first_output_time

if TYPE_CHECKING:
    from playground.protocol.sse import SSEItem
    from playground.protocol.state import StreamState
    from playground.protocol.stream import StreamDecoder

__all__ = ["DecodeAhead"]

_NOTHING: Sequence[SSEItem] = ()


class DecodeAhead:
    """The reader thread's half of a run's decoding (``on_response``/``on_chunk``) and the UI
    thread's (``take``, ``close``). One per run."""

    def __init__(self, decoder: StreamDecoder, has_output: Callable[[StreamState], bool]) -> None:
        self.decoder = decoder
        # Re-entrant: the UI thread holds it for a whole frame, and what the frame replays may
        # close the run (its end, Stop pressed while the frame waits on the event loop).
        self.lock = threading.RLock()
        self._has_output = has_output
        self._decoding = False  # only a successful response is decoded as it streams
        self._closed = False
        self._items: deque[Sequence[SSEItem]] = deque()
        # When the state first held output, on the reader's clock (the chunk's own ``t``).
        self.t_first_token: float | None = None

    # ---- reader thread -------------------------------------------------------------------
    def on_response(self, status: int, content_type: str | None) -> None:
        with self.lock:
            if self._closed:
                return
            # An error response's body is read whole and parsed once at the end (ui.session).
            self._decoding = status < 400
            if self._decoding:
                self.decoder.set_content_type(content_type)

    def on_chunk(self, t: float, data: bytes) -> None:
        with self.lock:
            if self._closed or not self._decoding:
                return  # nothing decoded: the session reads an error body itself, takes nothing
            decoder = self.decoder
            self._items.append(decoder.feed(data, t))
            if self.t_first_token is None and self._has_output(decoder.state):
                # The arrival of the item that carried it, as the finished run's Timing says.
                self.t_first_token = first_output_time(decoder.items, decoder.state) or t

    # ---- UI thread -----------------------------------------------------------------------
    @property
    def decoding(self) -> bool:
        return self._decoding

    @property
    def closed(self) -> bool:
        return self._closed

    def take(self) -> Sequence[SSEItem]:
        """The items of the next read the session replays (one per ``on_chunk``, in order)."""
        items = self._items
        return items.popleft() if items else _NOTHING

    def close(self) -> None:
        """No more feeding (the run was stopped or replaced): waits for a feed under way."""
        with self.lock:
            self._closed = True
