"""Responses API events (docs/protocol.md §3, §7) to our events: text, reasoning, tools, images."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.decoders.base import RouteDecoder, as_int, as_str
from playground.protocol.errors import error_from_object, payload_error
from playground.protocol.events import (
    Annotation,
    AudioChunk,
    BlockStarted,
    BlockStopped,
    Finished,
    ImageData,
    ReasoningDelta,
    RefusalDelta,
    Signature,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from playground.protocol.findings import FindingSink
from playground.protocol.sse import SSEEvent

__all__ = ["ResponsesDecoder"]

_TERMINAL: Final = frozenset({"response.completed", "response.incomplete", "response.failed"})
_QUIET: Final = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.content_part.added",
        "response.content_part.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.audio.done",
        "response.audio.transcript.done",
    }
)
# Tool progress events: documented, carry nothing the widgets show (§3 table).
_TOOL_PREFIXES: Final = (
    "response.image_generation_call.",
    "response.web_search_call.",
    "response.file_search_call.",
    "response.code_interpreter_call",
    "response.mcp_call",
    "response.mcp_list_tools.",
    "response.shell_call",
    "response.custom_tool_call_input.",
)
# All three reasoning spellings are accepted (docs/protocol.md §0).
_REASONING_DELTAS: Final = frozenset(
    {
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning.delta",
    }
)
_REASONING_DONES: Final = frozenset(
    {
        "response.reasoning_text.done",
        "response.reasoning_summary_text.done",
        "response.reasoning.done",
    }
)


def _shown(value: object) -> str:
    """A value as a finding quotes it: its JSON-ish repr, cut short (it came off the wire)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _part(kind: str, payload: dict[str, Any]) -> tuple[str, str | None, int | None]:
    """A content part's address; only str/int survive (any other shape cannot be a key)."""
    index = as_int(payload.get("summary_index")) if kind == "reasoning" else None
    if index is None:
        index = as_int(payload.get("content_index"))
    return (kind, as_str(payload.get("item_id")), index)


class ResponsesDecoder(RouteDecoder):
    """Typed events addressed by output_index / item_id / content_index."""

    route: ClassVar[str] = "responses"

    def __init__(self, sink: FindingSink, asked: Asked = NOTHING_ASKED) -> None:
        super().__init__(sink, asked)
        self._seq: int | None = None
        self._first = True
        self._items: dict[int | str, str] = {}  # output_index (or item_id) -> item type
        self._ids: dict[str, int | str] = {}  # item_id -> key
        self._open: dict[int | str, int] = {}  # key -> item index that opened it
        self._parts_with_deltas: set[tuple[str, str | None, int | None]] = set()
        self._tool_args: dict[int | str, list[str]] = {}  # streamed arguments per call
        self._reasoning_key: tuple[str | None, int | None] | None = None
        self._reasoning_any = False
        self._error_ended = False  # an `error` event ended it; response.failed may still follow
        self._annotated: set[str | None] = set()  # item ids whose annotations streamed

    # -- helpers ---------------------------------------------------------------------------

    def _sequence(self, ev: SSEEvent, payload: dict[str, Any]) -> None:
        seq = payload.get("sequence_number")
        if type(seq) is not int:
            if "sequence_number" in payload:  # there, but "7", 7.5, true or null: no integer
                self.sink.report(
                    "unexpected_shape",
                    f"sequence_number is {type(seq).__name__} {_shown(seq)}, not an integer",
                    ev.index,
                )
                self._first = False
                return
            if self._first:
                self.sink.once(
                    "no_seq",
                    "no_sequence_number",
                    "events carry no sequence_number (older recordings; gaps cannot be seen)",
                    ev.index,
                )
            self._first = False
            return
        self._first = False
        last = self._seq
        if last is not None:
            if seq > last + 1:
                self.sink.report(
                    "sequence_gap",
                    f"sequence_number jumped from {last} to {seq} "
                    f"({seq - last - 1} event(s) missing)",
                    ev.index,
                )
            elif seq <= last:
                self.sink.report(
                    "sequence_step_back",
                    f"sequence_number {seq} after {last}",
                    ev.index,
                )
        # Measure from the highest number seen: one event out of place is one finding, not two.
        self._seq = seq if last is None else max(seq, last)

    def _key(self, payload: dict[str, Any]) -> int | str:
        index = as_int(payload.get("output_index"))
        if index is not None:
            return index
        item_id = as_str(payload.get("item_id"))
        if item_id is not None:
            return self._ids.get(item_id, item_id)
        return -1

    def _check_started(self, ev: SSEEvent, key: int | str, what: str) -> None:
        if key not in self._items:
            self._items[key] = "?"
            self.sink.report(
                "delta_before_start",
                f"{what} for output item {key!r} before response.output_item.added",
                ev.index,
            )

    def _reasoning(self, payload: dict[str, Any], text: str, out: list[StreamEvent]) -> None:
        # Summary parts (and separate reasoning items) are joined with a blank line.
        part = _part("reasoning", payload)[1:]
        if self._reasoning_key is not None and part != self._reasoning_key and self._reasoning_any:
            out.append(ReasoningDelta("\n\n"))
        self._reasoning_key = part
        if text:
            out.append(ReasoningDelta(text))
            self._reasoning_any = True

    # -- the grammar -----------------------------------------------------------------------

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        kind = self.event_kind(ev, payload, named=False)
        if kind is None:
            return
        if ev.event == "message":
            # Seed "Streaming": "Each event is an `event:` line and a `data:` line". The OpenAI
            # SDK reads `data.type` only, so nothing breaks: info (LiteLLM sends data only).
            self.no_event_line(ev, kind, "no_event_line", "each Responses event has one")
        self._sequence(ev, payload)
        delta = payload.get("delta")
        if kind == "response.output_text.delta":
            key = self._key(payload)
            self._check_started(ev, key, "output_text.delta")
            self._parts_with_deltas.add(_part("text", payload))
            if type(delta) is str and delta:
                out.append(TextDelta(delta))
        elif kind in _REASONING_DELTAS:
            self._check_started(ev, self._key(payload), kind.rsplit(".", 1)[0])
            self._parts_with_deltas.add(_part("reasoning", payload))
            if type(delta) is str:
                self._reasoning(payload, delta, out)
        elif kind == "response.function_call_arguments.delta" or kind == (
            "response.custom_tool_call_input.delta"
        ):
            key = self._key(payload)
            self._check_started(ev, key, "arguments delta")
            if type(delta) is str:
                self._tool_args.setdefault(key, []).append(delta)
                out.append(ToolCallDelta(key=key, arguments=delta))
        elif kind == "response.output_item.added":
            self._item_added(ev, payload, out)
        elif kind == "response.output_item.done":
            self._item_done(ev, payload, out)
        elif kind == "response.output_text.annotation.added":
            annotation = payload.get("annotation")
            if type(annotation) is dict:
                self._annotated.add(_part("text", payload)[1])
                out.append(Annotation(annotation))
        elif kind == "response.output_text.done":
            if _part("text", payload) not in self._parts_with_deltas:
                text = as_str(payload.get("text"))
                if text:
                    out.append(TextDelta(text))
        elif kind in _REASONING_DONES:
            part = _part("reasoning", payload)
            if part not in self._parts_with_deltas:
                self._parts_with_deltas.add(part)
                text = as_str(payload.get("text"))
                if text:
                    self._reasoning(payload, text, out)
        elif kind == "response.refusal.delta":
            self._parts_with_deltas.add(_part("refusal", payload))
            if type(delta) is str and delta:
                out.append(RefusalDelta(delta))
        elif kind == "response.refusal.done":
            if _part("refusal", payload) not in self._parts_with_deltas:
                text = as_str(payload.get("refusal"))
                if text:
                    out.append(RefusalDelta(text))
        elif kind in (
            "response.function_call_arguments.done",
            "response.custom_tool_call_input.done",
        ):
            key = self._key(payload)
            args = as_str(payload.get("arguments"))
            if args is None:
                args = as_str(payload.get("input"))
            self._tool_whole(ev, key, args, as_str(payload.get("name")), None, out)
        elif kind == "response.image_generation_call.partial_image":
            b64 = as_str(payload.get("partial_image_b64"))
            if b64 is not None:
                out.append(
                    ImageData(
                        b64,
                        final=False,
                        index=as_int(payload.get("partial_image_index")),
                        output_format=as_str(payload.get("output_format")),
                        size=as_str(payload.get("size")),
                    )
                )
        elif kind in _TERMINAL:
            self._terminal(ev, kind, payload, out)
        elif kind == "error" or kind == "response.error":
            err = payload_error(payload) or error_from_object(payload) or StreamError("error")
            self.error(ev, err, out, final=kind)
            self._error_ended = True
        elif kind == "response.audio.delta":
            if type(delta) is str:
                out.append(AudioChunk(delta))
        elif kind == "response.audio.transcript.delta":
            if type(delta) is str and delta:
                out.append(TextDelta(delta))
        elif kind in _QUIET or kind.startswith(_TOOL_PREFIXES):
            pass
        else:
            self.unknown(ev, kind or ev.event)

    def _item_added(self, ev: SSEEvent, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        item = payload.get("item")
        if type(item) is not dict:
            self.sink.report("unexpected_shape", "output_item.added without an item", ev.index)
            return
        index = as_int(payload.get("output_index"))
        item_id = as_str(item.get("id"))
        key: int | str = index if index is not None else (item_id or -1)
        if item_id is not None:
            self._ids[item_id] = key
        kind = as_str(item.get("type")) or "?"
        self._items[key] = kind
        self._open[key] = ev.index
        out.append(BlockStarted(key, kind))
        if kind in ("function_call", "custom_tool_call"):
            args = as_str(item.get("arguments")) or as_str(item.get("input")) or ""
            out.append(
                ToolCallDelta(
                    key=key,
                    id=as_str(item.get("call_id")) or item_id,
                    name=as_str(item.get("name")),
                    arguments=args,
                )
            )
            if args:
                self._tool_args.setdefault(key, []).append(args)

    def _tool_whole(
        self,
        ev: SSEEvent,
        key: int | str,
        args: str | None,
        name: str | None,
        call_id: str | None,
        out: list[StreamEvent],
    ) -> None:
        """A ``.done`` restating a call's whole arguments: fills them in if none streamed;
        text only grows, so a disagreement keeps the streamed text and becomes a finding."""
        streamed = "".join(self._tool_args.get(key, ()))
        if args and not streamed:
            self._tool_args[key] = [args]
            out.append(ToolCallDelta(key=key, id=call_id, name=name, arguments=args, replace=True))
            return
        if args is not None and args != streamed:
            self.sink.report(
                "done_mismatch",
                f"the final arguments of call {key!r} differ from the streamed ones "
                "(the streamed text is kept)",
                ev.index,
            )
        if name or call_id:
            out.append(ToolCallDelta(key=key, id=call_id, name=name))

    def _item_done(self, ev: SSEEvent, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        item = payload.get("item")
        if type(item) is not dict:
            self.sink.report("unexpected_shape", "output_item.done without an item", ev.index)
            return
        index = as_int(payload.get("output_index"))
        item_id = as_str(item.get("id"))
        key: int | str = index if index is not None else self._ids.get(item_id or "", item_id or -1)
        if key not in self._items:
            self.sink.report(
                "delta_before_start",
                f"output_item.done for item {key!r} that was never added",
                ev.index,
            )
            self._items[key] = as_str(item.get("type")) or "?"
        self._open.pop(key, None)
        out.append(BlockStopped(key))
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            args = as_str(item.get("arguments"))
            if args is None:
                args = as_str(item.get("input"))
            call_id = as_str(item.get("call_id")) or item_id
            self._tool_whole(ev, key, args, as_str(item.get("name")), call_id, out)
        elif kind == "image_generation_call":
            result = as_str(item.get("result"))
            if result:
                out.append(
                    ImageData(
                        result,
                        final=True,
                        output_format=as_str(item.get("output_format")),
                        size=as_str(item.get("size")),
                    )
                )
        elif kind == "reasoning":
            encrypted = as_str(item.get("encrypted_content"))
            if encrypted:
                out.append(Signature("encrypted", encrypted))
        elif kind == "message":
            # Text that came only in the finished item (no deltas): keep it.
            content = item.get("content")
            if type(content) is list:
                for n, part in enumerate(content):
                    if type(part) is not dict:
                        continue
                    notes = part.get("annotations")
                    if type(notes) is list and item_id not in self._annotated:
                        # Citations that only the finished item states (none streamed).
                        out.extend(Annotation(note) for note in notes if type(note) is dict)
                    if ("text", item_id, n) in self._parts_with_deltas:
                        continue
                    if part.get("type") == "output_text":
                        text = as_str(part.get("text"))
                        if text and ("text", item_id, n) not in self._parts_with_deltas:
                            self._parts_with_deltas.add(("text", item_id, n))
                            out.append(TextDelta(text))

    def _terminal(
        self, ev: SSEEvent, kind: str, payload: dict[str, Any], out: list[StreamEvent]
    ) -> None:
        response = payload.get("response")
        if type(response) is dict:
            usage = response.get("usage")
            if type(usage) is dict:
                out.append(Usage(usage))
        else:
            response = {}
        if kind == "response.failed":
            err = error_from_object(response.get("error")) if response.get("error") else None
            if err is None:
                # OpenRouter: a top-level error_type / error on the failed event (§7).
                err = payload_error(payload)
            if err is None:
                etype = as_str(payload.get("error_type"))
                err = StreamError("the response failed", type=etype)
            if self.errors == 0:
                self.error(ev, err, out)
            else:
                out.append(err)
        out.append(Finished(kind, terminal=True, incomplete=kind == "response.incomplete"))

    def after_terminal_ok(self, ev: SSEEvent, payload: Any) -> bool:
        # Seeds ("When a stream fails"): an `error` event, then response.failed.
        return self._error_ended and isinstance(payload, dict) and payload.get("type") in _TERMINAL

    def finish(self, *, terminated: bool, failed: bool) -> None:
        if failed:
            return
        for key, opened in self._open.items():
            self.sink.report(
                "block_not_stopped",
                f"output item {key!r} ({self._items.get(key)}) was added but never done",
                opened,
            )
