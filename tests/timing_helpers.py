"""A run's timing with known arrival times, shared by the timing format and timing view tests."""

from __future__ import annotations

from playground.protocol.sse import SSEItem, SSEParser
from playground.protocol.state import StreamState
from playground.protocol.timing import Timing, compute_timing


def stalled_timing() -> Timing:
    """Five text events at 0.1 s steps, a 2 s stall, then the terminator."""
    parser = SSEParser()
    items: list[SSEItem] = []
    times = [0.1, 0.2, 0.3, 0.4, 0.5, 2.5]
    for i, t in enumerate(times[:-1]):
        items.extend(parser.feed(f'data: {{"n": {i}}}\n\n'.encode(), t))
    items.extend(parser.feed(b"data: [DONE]\n\n", times[-1]))
    state = StreamState()
    for i in range(5):
        state.choice(0).text.append(f"w{i} ", i)
    state.usage = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    state.status = "complete"  # the usage is the final count (while streaming it is not used)
    return compute_timing((items, state), t_headers=0.05, t_first_byte=0.1, t_end=2.5)
