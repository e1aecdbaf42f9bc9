"""Chat Completions chunks (docs/protocol.md §2, §7) to our events: text, reasoning, tools."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.decoders.base import RouteDecoder
from playground.protocol.errors import payload_error
from playground.protocol.events import (
    Annotation,
    AudioChunk,
    Finished,
    ReasoningDelta,
    RefusalDelta,
    Signature,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from playground.protocol.sse import SSEEvent

__all__ = ["INCOMPLETE_REASONS", "ChatDecoder"]

# finish_reason values that mean "stopped short of the answer" (docs/protocol.md §0).
INCOMPLETE_REASONS: Final = frozenset({"length", "max_tokens", "model_context_window_exceeded"})


class ChatDecoder(RouteDecoder):
    """One ``chat.completion.chunk`` at a time; tool calls merge by (choice, index) in the state."""

    route: ClassVar[str] = "chat"

    def __init__(self, sink: Any, asked: Asked = NOTHING_ASKED) -> None:
        super().__init__(sink, asked)
        self._usage_item: int | None = None
        self._tools: set[tuple[int, int]] = set()
        # Order checks (the simulator's `out-of-order` fault; gateway seed: the role comes first,
        # and a choice's finish_reason ends it): choices that have content, choices finished.
        self._content: set[int] = set()
        self._finished: set[int] = set()
        self._plain = True  # plain_text may answer: no usage chunk and no finish_reason yet

    def plain_text(self, ev: SSEEvent, payload: Any) -> str | None:
        """The text of a chunk that is nothing but choice 0's ``delta.content``, else None.

        Most chunks of a long answer are exactly that; the stream decoder appends their text
        straight to the state (the same fold ``decode`` + ``apply`` would do, without allocating
        an event per token: the decode benchmark). Anything else goes through ``decode``.
        """
        if type(payload) is not dict or not self._plain or ev.event != "message":
            return None
        choices = payload.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            return None
        delta = choice.get("delta")
        if type(delta) is not dict or len(delta) != 1:
            return None
        content = delta.get("content")
        if (
            type(content) is not str
            or choice.get("finish_reason") is not None
            or choice.get("index", 0) != 0
            or "error" in payload
            or payload.get("usage") is not None
        ):
            return None
        if content:
            self._content.add(0)
        return content

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        if type(payload) is not dict:
            self.sink.report("unexpected_shape", "chunk is not a JSON object", ev.index)
            return
        if self._usage_item is not None:
            # Both seeds: usage rides the last chunk before [DONE]; real streams send more
            # (OpenAI's `moderation` chunk), so this is a finding, not an assumption (§0).
            self.sink.once(
                "usage_not_last",
                "usage_not_last",
                f"a chunk arrived after the usage chunk (item {self._usage_item})",
                ev.index,
            )
        if ev.event != "message" and ev.event != "error":
            # Chat streams are data-only (seeds); an `event:` name is relayed and its chunk read
            # as the SDK reads it, but the name itself is not part of the grammar.
            self.unknown(ev, ev.event)
        err = payload.get("error")
        if err is not None or ev.event == "error":
            found = payload_error(payload)
            if found is not None:
                self.error(ev, found, out)
        choices = payload.get("choices")
        if choices:
            if type(choices) is list:
                for choice in choices:
                    if type(choice) is not dict:
                        continue
                    delta = choice.get("delta")
                    # Hot path (most chunks): one choice, a delta with only `content`.
                    if (
                        type(delta) is dict
                        and len(delta) == 1
                        and choice.get("finish_reason") is None
                        and type(content := delta.get("content")) is str
                    ):
                        if content:
                            index = choice.get("index", 0)
                            if type(index) is not int:
                                index = 0
                            if index in self._finished:
                                self._after_finish(ev, index)
                            self._content.add(index)
                            out.append(TextDelta(content, index))
                        continue
                    self._choice(ev, choice, out)
            else:
                self.sink.report("unexpected_shape", "choices is not an array", ev.index)
        usage = payload.get("usage")
        if usage is not None:
            if type(usage) is dict:
                out.append(Usage(usage))
                self._usage_item = ev.index
                self._plain = False
                if self.asked.include_usage is not None:
                    self._usage_shape(ev, choices)
        elif choices is None and err is None:
            # Neither a chunk nor an error: an event of no chat grammar (relayed, never silent).
            kind = payload.get("type")
            self.unknown(ev, str(kind) if kind is not None else "a chunk without choices")

    def _usage_shape(self, ev: SSEEvent, choices: Any) -> None:
        """The usage chunk against the shape the request asked for (gateway seed "Streaming
        events": with include_usage "that chunk has an empty choices array, as in OpenAI's API.
        Without it, the chunk keeps one choice with an empty delta")."""
        count = len(choices) if type(choices) is list else 0
        if self.asked.include_usage and count:
            self.sink.report(
                "usage_shape",
                f"the usage chunk has {count} choice(s); with stream_options.include_usage "
                "it has an empty choices array",
                ev.index,
            )
        elif not self.asked.include_usage and not count:
            self.sink.report(
                "usage_shape",
                "the usage chunk has no choice; without stream_options.include_usage it keeps "
                "one choice with an empty delta (a loop reading choices[0] breaks)",
                ev.index,
            )

    def finish(self, *, terminated: bool, failed: bool) -> None:
        if terminated and not failed and self.asked.include_usage and self._usage_item is None:
            self.sink.report(
                "no_usage",
                "stream_options.include_usage was asked for, but no chunk carried usage",
                None,
            )

    def _choice(self, ev: SSEEvent, choice: dict[str, Any], out: list[StreamEvent]) -> None:
        index = choice.get("index", 0)
        if type(index) is not int:
            index = 0
        delta = choice.get("delta")
        if delta:
            if type(delta) is dict:
                self._order(ev, index, delta)
                self._delta(ev, index, delta, out)
        else:
            message = choice.get("message")  # a whole (non-streamed) choice, see stream.py
            if type(message) is dict:
                self._delta(ev, index, message, out)
        reason = choice.get("finish_reason")
        if reason is not None:
            self._finished.add(index)
            self._plain = False
            reason = str(reason)
            out.append(Finished(reason, incomplete=reason in INCOMPLETE_REASONS, choice=index))

    def _order(self, ev: SSEEvent, index: int, delta: dict[str, Any]) -> None:
        """Findings for a delta out of order: the role after content, anything after finish."""
        adds = any(value for key, value in delta.items() if key != "role")
        if index in self._finished and adds:
            self._after_finish(ev, index)
        # `"role": null` is a null field (null_in_delta, reported by _delta), not a late role.
        if delta.get("role") is not None and index in self._content:
            self.sink.once(
                f"role_late:{index}",
                "out_of_order",
                f"choice {index}: the role arrives after the choice's content (it comes first)",
                ev.index,
            )
        if adds:
            self._content.add(index)

    def _after_finish(self, ev: SSEEvent, index: int) -> None:
        self.sink.once(
            f"after_finish:{index}",
            "out_of_order",
            f"choice {index}: a delta after the choice's finish_reason",
            ev.index,
        )

    def _delta(
        self, ev: SSEEvent, index: int, delta: dict[str, Any], out: list[StreamEvent]
    ) -> None:
        reasoning_seen = False
        details: Any = None
        blocks: Any = None
        for key, value in delta.items():
            if value is None:
                # Gateway seed: "A delta holds only what it adds, and never a field set to null."
                self.sink.once(
                    f"null:{key}",
                    "null_in_delta",
                    f"delta.{key} is null (the gateway's page says a delta never sets a field to "
                    "null); reported once per field",
                    ev.index,
                )
                continue
            if key == "content":
                if type(value) is str:
                    if value:
                        out.append(TextDelta(value, index))
                elif type(value) is list:
                    self._content_parts(value, index, out)
            elif key == "reasoning" or key == "reasoning_content":
                # The same thinking may come in two fields (OpenRouter sends `reasoning` and
                # `reasoning_details`); each delta contributes it once (docs/protocol.md §0).
                if type(value) is str and value and not reasoning_seen:
                    out.append(ReasoningDelta(value, index))
                    reasoning_seen = True
            elif key == "reasoning_details":
                details = value
            elif key == "thinking_blocks":
                blocks = value
            elif key == "refusal":
                if type(value) is str and value:
                    out.append(RefusalDelta(value, index))
            elif key == "tool_calls":
                if type(value) is list:
                    self._tool_calls(ev, index, value, out)
            elif key == "annotations" and type(value) is list:
                # OpenAI search models: [{"type": "url_citation", "url_citation": {url, title,
                # start_index, end_index}}]; kept flat, like Responses' annotations.
                for entry in value:
                    if type(entry) is dict:
                        inner = entry.get("url_citation")
                        if type(inner) is dict:
                            entry = {"type": entry.get("type"), **inner}
                        out.append(Annotation(entry))
            elif key == "audio" and type(value) is dict:
                # Audio output on chat (OpenAI `modalities: ["audio"]`): base64 PCM + transcript.
                data = value.get("data")
                if type(data) is str and data:
                    out.append(AudioChunk(data))
                transcript = value.get("transcript")
                if type(transcript) is str and transcript:
                    out.append(TextDelta(transcript, index))
            elif key == "function_call" and type(value) is dict:
                name = value.get("name")
                args = value.get("arguments")
                out.append(
                    ToolCallDelta(
                        key="function_call",
                        name=name if type(name) is str else None,
                        arguments=args if type(args) is str else "",
                        choice=index,
                    )
                )
        if details is not None and type(details) is list:
            self._details(details, index, reasoning_seen, out)
        if blocks is not None and type(blocks) is list:
            self._thinking_blocks(blocks, index, reasoning_seen, out)

    @staticmethod
    def _thinking_blocks(
        blocks: list[Any], index: int, reasoning_seen: bool, out: list[StreamEvent]
    ) -> None:
        # LiteLLM in front of Anthropic: delta.thinking_blocks[] holds Anthropic's thinking
        # blocks ({"type": "thinking", "thinking", "signature"}, {"type": "redacted_thinking",
        # "data"}) in pieces, beside reasoning_content with the same text (counted once).
        for block in blocks:
            if type(block) is not dict:
                continue
            if block.get("type") == "redacted_thinking":
                data = block.get("data")
                if type(data) is str and data:
                    out.append(Signature("redacted", data, index))
                continue
            text = block.get("thinking")
            if not reasoning_seen and type(text) is str and text:
                out.append(ReasoningDelta(text, index))
            signature = block.get("signature")
            if type(signature) is str and signature:
                out.append(Signature("signature", signature, index))

    @staticmethod
    def _content_parts(parts: list[Any], index: int, out: list[StreamEvent]) -> None:
        # Mistral (magistral): content is an array of parts; `thinking` parts hold reasoning.
        for part in parts:
            if type(part) is not dict:
                if type(part) is str and part:
                    out.append(TextDelta(part, index))
                continue
            kind = part.get("type")
            if kind == "thinking":
                inner = part.get("thinking")
                if type(inner) is str:
                    if inner:
                        out.append(ReasoningDelta(inner, index))
                elif type(inner) is list:
                    for sub in inner:
                        if type(sub) is dict:
                            text = sub.get("text")
                            if type(text) is str and text:
                                out.append(ReasoningDelta(text, index))
            elif kind == "text" or kind is None:
                text = part.get("text")
                if type(text) is str and text:
                    out.append(TextDelta(text, index))

    @staticmethod
    def _details(
        details: list[Any], index: int, reasoning_seen: bool, out: list[StreamEvent]
    ) -> None:
        # OpenRouter reasoning_details[]: reasoning.text | reasoning.summary | reasoning.encrypted.
        for detail in details:
            if type(detail) is not dict:
                continue
            kind = detail.get("type")
            if kind == "reasoning.encrypted":
                data = detail.get("data")
                if type(data) is str and data:
                    out.append(Signature("encrypted", data, index))
                continue
            signature = detail.get("signature")
            if type(signature) is str and signature:
                out.append(Signature("signature", signature, index))
            if reasoning_seen:
                continue
            text = detail.get("text") if kind != "reasoning.summary" else detail.get("summary")
            if type(text) is str and text:
                out.append(ReasoningDelta(text, index))

    def _tool_calls(
        self, ev: SSEEvent, index: int, calls: list[Any], out: list[StreamEvent]
    ) -> None:
        for position, call in enumerate(calls):
            if type(call) is not dict:
                continue
            key = call.get("index", position)
            if type(key) is not int:
                key = position
            function = call.get("function")
            name = args = None
            if type(function) is dict:
                name = function.get("name")
                args = function.get("arguments")
            call_id = call.get("id")
            seen = (index, key)
            if seen not in self._tools:
                self._tools.add(seen)
                if call_id is None and name is None:
                    self.sink.report(
                        "delta_before_start",
                        f"tool call {key} arguments before its id and name",
                        ev.index,
                    )
            out.append(
                ToolCallDelta(
                    key=key,
                    id=call_id if type(call_id) is str else None,
                    name=name if type(name) is str else None,
                    arguments=args if type(args) is str else "",
                    choice=index,
                )
            )
