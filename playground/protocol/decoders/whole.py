"""A whole (non-streamed) body: read into the same events a stream would give, and judged
against what was asked (docs/protocol.md §0: "a stream asked for but one body answered")."""

from __future__ import annotations

from typing import Any, Final

import orjson

from playground.protocol import safe_json
from playground.protocol.errors import payload_error
from playground.protocol.events import (
    Finished,
    ImageData,
    ReasoningDelta,
    RefusalDelta,
    Signature,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    TranscriptDone,
    Usage,
)
from playground.protocol.findings import FindingSink

__all__ = ["NOT_JSON", "decode_whole", "read_body", "report_audio_body"]

NOT_JSON: Final = object()  # read_body's payload for a body that is not JSON
_ONE_BODY: Final = "asked for a stream, got one body: the server answered with one"

_INCOMPLETE = frozenset({"length", "max_tokens", "model_context_window_exceeded"})


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read_body(
    route: str,
    body: bytes,
    stream_requested: bool | None,
    out: list[StreamEvent],
    sink: FindingSink,
    item: int,
) -> tuple[Any, str | None]:
    """Parse and judge a whole JSON body; append the events it means to ``out``. Returns the
    payload (``NOT_JSON`` if it is not JSON) and the route it looks like.

    ``stream_requested``: False when the request asked for one body; None when unknown, which
    counts as a stream asked for (the playground always asks for one)."""
    problem = ""
    too_deep = False
    try:
        payload: Any = safe_json.loads(body)
    except safe_json.JsonTooDeep as exc:
        payload, problem, too_deep = NOT_JSON, str(exc), True
    except ValueError as exc:
        payload, problem = NOT_JSON, str(exc)
    error = payload_error(payload) if payload is not NOT_JSON else None
    if error is not None:
        # An error envelope is the error (§0), not an answer in the wrong shape. With an HTTP
        # error status it never gets here (fail_before_stream); without one (a saved error body,
        # a gateway that said 200) it is the run's error all the same.
        sink.report("error_body", f"the body is an error, not a stream: {error.message}", item)
    elif stream_requested is not False:
        sink.report("json_body", f"{_ONE_BODY} JSON body although a stream was asked for", item)
    if payload is NOT_JSON:
        if too_deep:
            sink.report("json_too_deep", f"body not read: {problem}", item)
        else:
            sink.report("invalid_json", f"body is not JSON: {problem}", item)
        return payload, None
    return payload, decode_whole(route, payload, out, sink, item)


def report_audio_body(sink: FindingSink, item: int) -> None:
    """One audio body where a stream of events was asked for (speech with stream_format "sse"
    answered with one WAV, as LiteLLM does): a warning; the audio is still shown and playable."""
    sink.report(
        "audio_body",
        f"{_ONE_BODY} audio body although a stream of events was asked for",
        item,
    )


def decode_whole(
    route: str, payload: Any, out: list[StreamEvent], sink: FindingSink, item: int
) -> str | None:
    """Append the events the body means; return the route it looks like (None if unknown)."""
    err = payload_error(payload)
    if err is not None:
        out.append(err)
        return None
    if not isinstance(payload, dict):
        sink.report("unexpected_shape", "the body is not a JSON object", item)
        return None
    if isinstance(payload.get("choices"), list):
        _chat(payload, out)
        return "chat"
    if payload.get("object") == "response":
        _response(payload, out)
        return "responses"
    if payload.get("type") == "message":
        _message(payload, out)
        return "messages"
    if isinstance(payload.get("data"), list):
        for entry in payload["data"]:
            if isinstance(entry, dict) and isinstance(entry.get("b64_json"), str):
                from playground.protocol.decoders.images import check_image

                check_image(entry["b64_json"], sink, item, "the image body")
                out.append(
                    ImageData(
                        entry["b64_json"],
                        final=True,
                        output_format=_s(payload.get("output_format")),
                    )
                )
        _usage(payload, out)
        out.append(Finished(None, terminal=True))
        return "images"
    if payload.get("object") == "music.job":
        from playground.protocol.decoders.music import job_update

        update = job_update(payload)
        if update is not None:
            out.append(update)
        out.append(Finished(None, terminal=True))
        return "music"
    if isinstance(payload.get("text"), str):
        out.append(TranscriptDone(payload["text"]))
        _usage(payload, out)
        out.append(Finished(None, terminal=True))
        return "transcription"
    sink.report("unknown_body", "a JSON body of an unknown shape", item)
    out.append(Finished(None, terminal=True))
    return None


def _usage(payload: dict[str, Any], out: list[StreamEvent]) -> None:
    usage = payload.get("usage")
    if isinstance(usage, dict):
        out.append(Usage(usage))


def _chat(payload: dict[str, Any], out: list[StreamEvent]) -> None:
    for position, choice in enumerate(payload["choices"]):
        if not isinstance(choice, dict):
            continue
        index = choice.get("index", position)
        index = index if isinstance(index, int) else position
        message = choice.get("message")
        if isinstance(message, dict):
            content = message.get("content")
            if isinstance(content, str) and content:
                out.append(TextDelta(content, index))
            reasoning = _s(message.get("reasoning")) or _s(message.get("reasoning_content"))
            if reasoning:
                out.append(ReasoningDelta(reasoning, index))
            refusal = _s(message.get("refusal"))
            if refusal:
                out.append(RefusalDelta(refusal, index))
            calls = message.get("tool_calls")
            if isinstance(calls, list):
                for n, call in enumerate(calls):
                    if not isinstance(call, dict):
                        continue
                    fn: dict[str, Any] = (
                        call["function"] if isinstance(call.get("function"), dict) else {}
                    )
                    out.append(
                        ToolCallDelta(
                            key=n,
                            id=_s(call.get("id")),
                            name=_s(fn.get("name")),
                            arguments=_s(fn.get("arguments")) or "",
                            choice=index,
                        )
                    )
        reason = _s(choice.get("finish_reason"))
        if reason:
            out.append(Finished(reason, incomplete=reason in _INCOMPLETE, choice=index))
    _usage(payload, out)
    out.append(Finished(None, terminal=True))


def _response(payload: dict[str, Any], out: list[StreamEvent]) -> None:
    for n, item in enumerate(payload.get("output") or []):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict):
                    if part.get("type") == "output_text" and _s(part.get("text")):
                        out.append(TextDelta(part["text"]))
                    elif part.get("type") == "refusal" and _s(part.get("refusal")):
                        out.append(RefusalDelta(part["refusal"]))
        elif kind == "reasoning":
            texts = [
                p["text"]
                for p in (item.get("summary") or []) + (item.get("content") or [])
                if isinstance(p, dict) and _s(p.get("text"))
            ]
            if texts:
                out.append(ReasoningDelta("\n\n".join(texts)))
            if _s(item.get("encrypted_content")):
                out.append(Signature("encrypted", item["encrypted_content"]))
        elif kind == "function_call":
            out.append(
                ToolCallDelta(
                    key=n,
                    id=_s(item.get("call_id")) or _s(item.get("id")),
                    name=_s(item.get("name")),
                    arguments=_s(item.get("arguments")) or "",
                )
            )
        elif kind == "image_generation_call" and _s(item.get("result")):
            out.append(
                ImageData(item["result"], final=True, output_format=_s(item.get("output_format")))
            )
    _usage(payload, out)
    status = _s(payload.get("status"))
    if status == "failed":
        err = payload_error({"error": payload.get("error") or "response failed"})
        if err is not None:
            out.append(err)
    out.append(
        Finished(
            f"response.{status}" if status else None,
            terminal=True,
            incomplete=status == "incomplete",
        )
    )


def _message(payload: dict[str, Any], out: list[StreamEvent]) -> None:
    for n, block in enumerate(payload.get("content") or []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and _s(block.get("text")):
            out.append(TextDelta(block["text"]))
        elif kind == "thinking" and _s(block.get("thinking")):
            out.append(ReasoningDelta(block["thinking"]))
        elif kind == "redacted_thinking" and _s(block.get("data")):
            out.append(Signature("redacted", block["data"], n))
        elif kind in ("tool_use", "server_tool_use"):
            out.append(
                ToolCallDelta(
                    key=n,
                    id=_s(block.get("id")),
                    name=_s(block.get("name")),
                    arguments=orjson.dumps(block.get("input", {})).decode(),
                    server=kind == "server_tool_use",
                )
            )
    usage = payload.get("usage")
    if isinstance(usage, dict):
        out.append(Usage(usage))
    reason = _s(payload.get("stop_reason"))
    out.append(
        Finished(
            reason,
            terminal=True,
            incomplete=reason in ("max_tokens", "model_context_window_exceeded"),
        )
    )
