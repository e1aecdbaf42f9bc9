"""An event's data as JSON: the ``[DONE]`` sentinel, and the parse of a long event's bytes."""

from __future__ import annotations

from time import sleep
from typing import Any, Final

import orjson

from playground.protocol.sse import SSEEvent, data_bytes_of_raw

__all__ = ["LONG_EVENT", "is_done", "loads_long"]

LONG_EVENT: Final = 1 << 16  # raw bytes above which an event's JSON is parsed from its bytes
_loads: Final = orjson.loads
_JSONError: Final = orjson.JSONDecodeError


def is_done(data: str) -> bool:
    """The ``[DONE]`` sentinel (OpenAI SDK stops at any data starting with it; §1)."""
    return data == "[DONE]" or (len(data) < 16 and data.strip() == "[DONE]")


def loads_long(item: SSEEvent) -> Any:
    """A long event's JSON from its data bytes (orjson reads UTF-8 itself); the str path only if
    that fails, so invalid UTF-8 reads as U+FFFD exactly as ``item.data`` would give it.

    Native code never hands the GIL over by itself: framing, copying out and parsing a 2.7 MB
    partial image back to back held it for about 12 ms on the reader thread, and the UI thread
    waited all that time (image_ui_block_ms). ``sleep(0)`` between the steps lets it in."""
    sleep(0)
    try:
        data = data_bytes_of_raw(item.raw)
        sleep(0)
        return _loads(data)
    except _JSONError:
        return _loads(item.data)
    finally:
        sleep(0)
