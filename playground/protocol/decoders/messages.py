"""Anthropic Messages events (docs/protocol.md §4) to our events: text, thinking, tools."""

from __future__ import annotations

from typing import Any, ClassVar, Final

import orjson

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.decoders.base import RouteDecoder, as_int, as_str
from playground.protocol.errors import payload_error
from playground.protocol.events import (
    BlockStarted,
    BlockStopped,
    Finished,
    ReasoningDelta,
    Signature,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from playground.protocol.findings import FindingSink
from playground.protocol.sse import SSEEvent

__all__ = ["MessagesDecoder"]

# stop_reason values that stop short of the answer (ANT-PY stop_reason.py; docs/protocol.md §0).
_INCOMPLETE: Final = frozenset({"max_tokens", "model_context_window_exceeded"})


class MessagesDecoder(RouteDecoder):
    """message_start, then start/delta*/stop per block, message_delta, message_stop."""

    route: ClassVar[str] = "messages"

    def __init__(self, sink: FindingSink, asked: Asked = NOTHING_ASKED) -> None:
        super().__init__(sink, asked)
        self._blocks: dict[int, str] = {}  # index -> block type
        self._open: dict[int, int] = {}  # index -> timeline item of its content_block_start
        self._started = False  # message_start came (or the missing one was reported)

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        # The SSE name equals data.type (ANT-DOC); it is the fallback.
        kind = self.event_kind(ev, payload)
        if kind is None:
            return
        if ev.event == "message":
            # docs/protocol.md §1: the Anthropic SDK routes on the SSE `event:` name and drops
            # events without one, so a gateway serving /v1/messages must send `event:` lines.
            self.no_event_line(
                ev, kind, "event_line_required", "the Anthropic SDK drops such events"
            )
        if not self._started and kind != "ping" and kind != "error":
            self._started = True
            if kind != "message_start":
                # ANT-DOC flow and the gateway seed: "message_start opens with the input token
                # count"; everything else comes after it.
                self.sink.report(
                    "out_of_order",
                    f"the stream opens with {kind!r}, not message_start",
                    ev.index,
                )
        if kind == "content_block_delta":
            self._delta(ev, payload, out)
        elif kind == "content_block_start":
            self._start(ev, payload, out)
        elif kind == "content_block_stop":
            index = as_int(payload.get("index"))
            if index is None:
                return
            if index not in self._blocks:
                self.sink.report(
                    "delta_before_start",
                    f"content_block_stop for block {index} that never started",
                    ev.index,
                )
            self._open.pop(index, None)
            out.append(BlockStopped(index))
        elif kind == "message_start":
            message = payload.get("message")
            if type(message) is dict:
                usage = message.get("usage")
                if type(usage) is dict:
                    out.append(Usage(usage))
        elif kind == "message_delta":
            delta = payload.get("delta")
            if type(delta) is dict and "stop_reason" in delta:
                reason = as_str(delta.get("stop_reason"))
                if reason is not None:
                    out.append(Finished(reason, incomplete=reason in _INCOMPLETE))
            else:
                # Seed: "message_delta carries stop_reason and cumulative usage.output_tokens".
                # A text nested here (mockllm wraps a content_block_delta) is no block's text:
                # the Anthropic SDK does not show it, and neither does the panel.
                inner = as_str(delta.get("type")) if type(delta) is dict else None
                what = f"a {inner!r} object" if inner else "no stop_reason"
                self.sink.once(
                    "message_delta_shape",
                    "unexpected_shape",
                    f"message_delta.delta holds {what}, not {{stop_reason, stop_sequence}} "
                    "(anything in it is not read); reported once",
                    ev.index,
                )
            usage = payload.get("usage")
            if type(usage) is dict:
                # Cumulative counts: overlay on message_start's usage, never add (§4).
                out.append(Usage(usage, overlay=True))
        elif kind == "message_stop":
            out.append(Finished(None, terminal=True))
        elif kind == "ping":
            pass
        elif kind == "error":
            self.error(ev, payload_error(payload) or StreamError("error"), out)
        else:
            self.unknown(ev, kind)

    def _start(self, ev: SSEEvent, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        index = as_int(payload.get("index"))
        block = payload.get("content_block")
        if index is None or type(block) is not dict:
            self.sink.report(
                "unexpected_shape", "content_block_start without index/block", ev.index
            )
            return
        kind = as_str(block.get("type")) or "?"
        self._blocks[index] = kind
        self._open[index] = ev.index
        # Server tool results arrive whole in the start event (§4): keep them for the widgets.
        whole = kind.endswith("_tool_result") or kind == "container_upload"
        out.append(BlockStarted(index, kind, block if whole else None))
        if kind == "text":
            text = as_str(block.get("text"))
            if text:
                out.append(TextDelta(text))
        elif kind == "thinking":
            text = as_str(block.get("thinking"))
            if text:
                out.append(ReasoningDelta(text))
            signature = as_str(block.get("signature"))
            if signature:
                out.append(Signature("signature", signature, index))
        elif kind == "redacted_thinking":
            # Opaque: noted, never shown as text (docs/protocol.md §4: `redacted_thinking{data}`).
            out.append(Signature("redacted", as_str(block.get("data")) or "", index))
        elif kind == "tool_use" or kind == "server_tool_use":
            given = block.get("input")
            args = orjson.dumps(given).decode() if type(given) is dict and given else ""
            out.append(
                ToolCallDelta(
                    key=index,
                    id=as_str(block.get("id")),
                    name=as_str(block.get("name")),
                    arguments=args,
                    server=kind == "server_tool_use",
                )
            )
        # *_tool_result and container_upload blocks arrive whole in the start event (§4 inference).

    def _delta(self, ev: SSEEvent, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        index = as_int(payload.get("index"))
        delta = payload.get("delta")
        if index is None or type(delta) is not dict:
            self.sink.report(
                "unexpected_shape", "content_block_delta without index/delta", ev.index
            )
            return
        if index not in self._blocks:
            self._blocks[index] = "?"
            self.sink.report(
                "delta_before_start",
                f"content_block_delta for block {index} before its content_block_start",
                ev.index,
            )
        elif index not in self._open:
            self.sink.report(
                "event_after_terminator",
                f"content_block_delta for block {index} after its stop",
                ev.index,
            )
        kind = delta.get("type")
        if kind == "text_delta":
            text = as_str(delta.get("text"))
            if text:
                out.append(TextDelta(text))
        elif kind == "thinking_delta":
            text = as_str(delta.get("thinking"))
            if text:
                out.append(ReasoningDelta(text))
        elif kind == "input_json_delta":
            part = as_str(delta.get("partial_json"))
            if part is not None:
                out.append(
                    ToolCallDelta(
                        key=index,
                        arguments=part,
                        server=self._blocks.get(index) == "server_tool_use",
                    )
                )
        elif kind == "signature_delta":
            signature = as_str(delta.get("signature"))
            if signature:
                out.append(Signature("signature", signature, index))
        elif kind == "citations_delta":
            pass
        else:
            self.unknown(ev, f"content_block_delta/{kind}")

    def finish(self, *, terminated: bool, failed: bool) -> None:
        if failed:
            return
        for index, opened in self._open.items():
            self.sink.report(
                "block_not_stopped",
                f"block {index} ({self._blocks.get(index)}) never got its content_block_stop",
                opened,
            )
