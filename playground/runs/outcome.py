"""How a run ends: the decoder's verdict with the HTTP status and the transport's failure in it.

Pure and synchronous: a session calls ``end_run`` once, when its byte source has said ``on_end``,
and the state it leaves is what the widgets, the history and a capture's status show.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Types only: the decoder and its state load with the first run, not with the window.
    from playground.protocol.sse import SSEItem
    from playground.protocol.state import StreamState
    from playground.protocol.stream import StreamDecoder
    from playground.runs.record import RunRecord

__all__ = ["end_run", "fail_unexpectedly", "has_output", "retry_seconds", "tokens_per_second"]


def has_output(state: StreamState) -> bool:
    """Whether anything a person would call "the answer" has arrived (for time to first token)."""
    choice = state.choices.get(0)
    if choice is not None and (choice.text or choice.reasoning or choice.refusal):
        return True
    if any(c.text or c.reasoning for c in state.choices.values()):
        return True
    return bool(
        state.tool_calls
        or state.images
        or (state.audio is not None and state.audio.data)
        or state.segments
        or state.done_text
    )


def end_run(run: RunRecord, decoder: StreamDecoder, error_body: bytes, t: float) -> list[SSEItem]:
    """Finish ``decoder`` for ``run``, ended at ``t``; the timeline items the end added.

    A non-2xx answer's body (``error_body``, keys already scrubbed) is parsed once, whole; a
    transport failure becomes the state's error and fails the run, except a connection dropped
    mid-stream, which stays "truncated" (the decoder decided that at finish, docs/protocol.md §0).
    """
    run.t_end = t
    if run.status is not None and run.status >= 400:
        from playground.transport.errors import describe_http_error

        ctype = run.header("content-type")
        run.retry_after = run.header("retry-after")
        shown = len(decoder.items)
        decoder.fail_before_stream(run.status, error_body, ctype, run.retry_after)
        run.http_error = describe_http_error(run.status, error_body, ctype, run.retry_after)
        return list(decoder.items[shown:])  # the error body's own timeline row
    items = list(decoder.finish(t))
    error = run.transport_error
    if error is not None:
        state = decoder.state
        if state.error is None:
            from playground.protocol.state import ErrorInfo

            state.error = ErrorInfo(message=error.message, type=error.kind)
        if not (error.kind == "dropped" and run.t_first_byte is not None):
            state.status = "failed"
    if run.t_first_token is None and has_output(decoder.state):
        from playground.protocol.figures import first_output_time

        run.t_first_token = first_output_time(decoder.items, decoder.state) or t
    return items


def fail_unexpectedly(state: StreamState, exc: BaseException) -> None:
    """A bug below the session ended the run: one sentence, never a traceback."""
    from playground.protocol.state import ErrorInfo

    state.error = ErrorInfo(
        message=f"The run failed unexpectedly ({type(exc).__name__}).", type="internal"
    )
    state.status = "failed"


def tokens_per_second(
    state: StreamState, t_first: float | None, t_last: float | None
) -> float | None:
    """Output tokens per second since the first token (protocol/figures.py ``RATE``)."""
    from playground.protocol.figures import output_tokens_per_second

    return output_tokens_per_second(state, t_first, t_last)


def retry_seconds(value: str | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())
