"""One-line descriptions of timeline items for the inspector's "type" and "summary" columns."""

from __future__ import annotations

from typing import Any, Final

from playground.protocol.event_json import is_done
from playground.protocol.media import b64decode_lenient, image_format, image_size
from playground.protocol.sse import SSEComment, SSEEvent, SSEItem, SSEUnterminated

__all__ = ["event_type", "summarize"]

_QUOTE_MAX: Final = 48


def event_type(item: SSEItem, payload: object | None) -> str:
    """SSE event name, else ``data["type"]``, ``[DONE]``, comment, chunk or unterminated."""
    if isinstance(item, SSEComment):
        return "comment"
    if isinstance(item, SSEUnterminated):
        return "unterminated"
    if item.event != "message":
        return item.event
    if is_done(item.data):
        return "[DONE]"
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str) and kind:
            return kind
        if "choices" in payload or payload.get("object") == "chat.completion.chunk":
            return "chunk"
        if "error" in payload:
            return "error"
    return "message"


def _q(text: str) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    if len(text) > _QUOTE_MAX:
        text = text[: _QUOTE_MAX - 1] + "…"
    return f'"{text}"'


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1000:
        return f"{n / 1000:.1f} kB"
    return f"{n} B"


def _b64_len(b64: str) -> int:
    return max(0, len(b64) * 3 // 4 - b64[-2:].count("="))


def _image(label: str, b64: str, index: Any, fmt: Any, size: Any) -> str:
    head = b64decode_lenient(b64[: 4096 - 4096 % 4]) or b""
    dims = image_size(head)
    fmt = image_format(head) or (fmt if isinstance(fmt, str) else None) or "?"
    if dims:
        geometry = f"{dims[0]}x{dims[1]}"
    elif isinstance(size, str):
        geometry = size
    else:
        geometry = "?x?"
    number = f" #{index + 1}" if isinstance(index, int) else ""
    return f"{label}{number} ({geometry} {fmt}, {_size(_b64_len(b64))})"


def _error(payload: dict[str, Any]) -> str | None:
    err = payload.get("error")
    if isinstance(err, dict):
        message = err.get("message")
        return f"error: {message}" if isinstance(message, str) else "error"
    if isinstance(err, str):
        return f"error: {err}"
    if payload.get("type") == "error":
        message = payload.get("message")
        return f"error: {message}" if isinstance(message, str) else "error"
    return None


def _usage(usage: Any) -> str | None:
    if not isinstance(usage, dict):
        return None
    given = usage.get("prompt_tokens", usage.get("input_tokens"))
    taken = usage.get("completion_tokens", usage.get("output_tokens"))
    if given is None and taken is None:
        return "usage"
    shown_in = given if given is not None else "?"
    shown_out = taken if taken is not None else "?"
    return f"usage {shown_in} in / {shown_out} out"


def _chunk(payload: dict[str, Any]) -> str:
    parts: list[str] = []
    err = _error(payload)
    if err:
        parts.append(err)
    choices = payload.get("choices")
    if isinstance(choices, list):
        many = len(choices) > 1
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            prefix = f"[{choice.get('index')}] " if many else ""
            found = choice.get("delta")
            if not isinstance(found, dict):
                found = choice.get("message")
            delta: dict[str, Any] = found if isinstance(found, dict) else {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                parts.append(f"{prefix}text {_q(content)}")
            elif isinstance(content, list):
                parts.append(f"{prefix}content parts")
            reasoning = delta.get("reasoning") or delta.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                parts.append(f"{prefix}reasoning {_q(reasoning)}")
            elif isinstance(delta.get("reasoning_details"), list) and delta["reasoning_details"]:
                parts.append(f"{prefix}reasoning details")
            refusal = delta.get("refusal")
            if isinstance(refusal, str) and refusal:
                parts.append(f"{prefix}refusal {_q(refusal)}")
            notes = delta.get("annotations")
            if isinstance(notes, list) and notes:
                parts.extend(f"{prefix}{_annotation(note)}" for note in notes)
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                for call in calls:
                    if not isinstance(call, dict):
                        continue
                    got = call.get("function")
                    fn: dict[str, Any] = got if isinstance(got, dict) else {}
                    name = fn.get("name")
                    args = fn.get("arguments")
                    bits = [f"{prefix}tool_call[{call.get('index')}]"]
                    if isinstance(name, str):
                        bits.append(name)
                    if isinstance(args, str) and args:
                        bits.append(args[:_QUOTE_MAX])
                    parts.append(" ".join(bits))
            if delta.get("role") and not parts:
                parts.append(f"{prefix}role {delta['role']}")
            reason = choice.get("finish_reason")
            if reason:
                parts.append(f"{prefix}finish {reason}")
    usage = _usage(payload.get("usage"))
    if usage:
        parts.append(usage)
    if not parts and payload.get("moderation") is not None:
        parts.append("moderation")
    return ", ".join(parts) if parts else "empty chunk"


def _annotation(value: Any) -> str:
    """'citation "Title" https://…' for a url_citation; else the annotation's type."""
    if not isinstance(value, dict):
        return "annotation"
    inner = value.get("url_citation")
    found: dict[str, Any] = inner if isinstance(inner, dict) else value
    kind = value.get("type") or "annotation"
    label = "citation" if kind == "url_citation" else str(kind)
    title = found.get("title")
    url = found.get("url")
    parts = [label]
    if isinstance(title, str) and title:
        parts.append(_q(title))
    if isinstance(url, str) and url:
        parts.append(url if len(url) <= 80 else url[:79] + "…")
    return " ".join(parts)


def _percent(value: Any) -> str:
    return f"{value * 100:.0f}%" if isinstance(value, int | float) else "?%"


def _job(kind: str, p: dict[str, Any]) -> str:
    """Music job news: 'job queued 0%', 'progress 45%', 'job completed 100% (audio ready)'."""
    job = p.get("job")
    if not isinstance(job, dict):
        return f"progress {_percent(p.get('progress'))}"
    status = job.get("status")
    line = f"job {status if isinstance(status, str) else '?'} {_percent(job.get('progress'))}"
    seconds = job.get("duration_seconds")
    if isinstance(seconds, int | float):
        line += f", {seconds:g} s"
    if job.get("audio_url"):
        line += " (audio ready)"
    return line


def _typed(kind: str, p: dict[str, Any]) -> str:
    delta = p.get("delta")
    if kind.endswith(".delta") and isinstance(delta, str):
        if "function_call_arguments" in kind or "arguments" in kind:
            return f"arguments {delta[:_QUOTE_MAX]}"
        if "reasoning" in kind:
            return f"reasoning {_q(delta)}"
        if "refusal" in kind:
            return f"refusal {_q(delta)}"
        if kind.startswith("transcript"):
            return f"text {_q(delta)}"
        return f"text {_q(delta)}"
    if kind == "content_block_delta" and isinstance(delta, dict):
        dkind = delta.get("type")
        if dkind == "text_delta":
            return f"text {_q(str(delta.get('text', '')))}"
        if dkind == "thinking_delta":
            return f"reasoning {_q(str(delta.get('thinking', '')))}"
        if dkind == "input_json_delta":
            return f"[{p.get('index')}] input {str(delta.get('partial_json', ''))[:_QUOTE_MAX]}"
        if dkind == "signature_delta":
            return f"signature ({len(str(delta.get('signature', '')))} chars)"
        return str(dkind)
    if kind == "content_block_start":
        block = p.get("content_block")
        if isinstance(block, dict):
            name = block.get("name")
            return f"[{p.get('index')}] {block.get('type')}" + (f" {name}" if name else "")
    if kind == "content_block_stop":
        return f"[{p.get('index')}] stop"
    if kind == "message_start":
        msg = p.get("message")
        if isinstance(msg, dict):
            return f"message {msg.get('model', '')} " + (_usage(msg.get("usage")) or "")
    if kind == "message_delta":
        d = delta if isinstance(delta, dict) else {}
        usage = _usage(p.get("usage"))
        return f"stop_reason {d.get('stop_reason')}" + (f", {usage}" if usage else "")
    if kind in ("image_generation.partial_image", "image_edit.partial_image"):
        b64 = p.get("b64_json")
        if isinstance(b64, str):
            return _image(
                "partial image",
                b64,
                p.get("partial_image_index"),
                p.get("output_format"),
                p.get("size"),
            )
    if kind in ("image_generation.completed", "image_edit.completed"):
        b64 = p.get("b64_json")
        if isinstance(b64, str):
            return _image("image", b64, None, p.get("output_format"), p.get("size"))
    if kind == "response.image_generation_call.partial_image":
        b64 = p.get("partial_image_b64")
        if isinstance(b64, str):
            return _image(
                "partial image",
                b64,
                p.get("partial_image_index"),
                p.get("output_format"),
                p.get("size"),
            )
    if kind == "speech.audio.delta":
        audio = p.get("audio")
        if isinstance(audio, str):
            return f"audio {_b64_len(audio)} B"
    if kind == "image_generation.text_chunk":
        return f"{p.get('phase') or 'text'} {_q(str(p.get('text', '')))}"
    if kind == "transcript.text.segment":
        return f"segment {p.get('speaker') or ''} {_q(str(p.get('text', '')))}".replace("  ", " ")
    if kind == "transcript.text.done":
        return f"done {_q(str(p.get('text', '')))}"
    if kind.startswith("response.output_item."):
        item = p.get("item")
        if isinstance(item, dict):
            name = item.get("name")
            verb = "added" if kind.endswith("added") else "done"
            return f"{verb} [{p.get('output_index')}] {item.get('type')}" + (
                f" {name}" if name else ""
            )
    if kind.startswith("response.content_part.") or kind.startswith(
        "response.reasoning_summary_part."
    ):
        part = p.get("part")
        verb = "added" if kind.endswith("added") else "done"
        where = p.get("content_index", p.get("summary_index"))
        shown = part.get("type") if isinstance(part, dict) else "part"
        return f"part {verb} [{p.get('output_index')}:{where}] {shown}"
    if kind == "message_stop":
        return "end of message"
    if kind == "ping":
        return "keep-alive"
    if kind in ("response.created", "response.in_progress", "response.queued"):
        resp = p.get("response")
        model = resp.get("model") if isinstance(resp, dict) else None
        return f"{kind.split('.', 1)[1].replace('_', ' ')}" + (f" ({model})" if model else "")
    if kind in ("response.completed", "response.incomplete", "response.failed"):
        resp = p.get("response")
        if isinstance(resp, dict):
            err = resp.get("error")
            if isinstance(err, dict) and err.get("message"):
                return f"error: {err.get('message')}"
            details = resp.get("incomplete_details")
            if isinstance(details, dict) and details.get("reason"):
                return f"incomplete: {details.get('reason')}"
            return _usage(resp.get("usage")) or kind
    if kind.endswith(".done") and isinstance(p.get("text"), str):
        return f"done {_q(p['text'])}"
    if kind.startswith("music.job."):
        return _job(kind, p)
    if kind == "response.output_text.annotation.added":
        return _annotation(p.get("annotation"))
    usage = _usage(p.get("usage"))
    if usage:
        return usage
    return kind


def summarize(item: SSEItem, payload: object | None) -> str:
    """One line: 'text "Hello"', 'usage 14 in / 7 out', 'partial image #1 (1024x1024 png, 1 MB)'."""
    try:
        return _summarize(item, payload)
    except Exception:  # a summary must never break the timeline
        return "?"


def _summarize(item: SSEItem, payload: object | None) -> str:
    if isinstance(item, SSEComment):
        return f": {item.text}" if item.text else ": (keep-alive)"
    if isinstance(item, SSEUnterminated):
        return f"cut off at end of stream ({_size(item.size)})"
    assert isinstance(item, SSEEvent)
    if item.event == "audio" and not item.data:
        return f"audio {item.end - item.start} B"
    if is_done(item.data):
        return "end of stream"
    if not isinstance(payload, dict):
        if payload is None:
            return f"not JSON: {_q(item.data)}" if item.data.strip() else "empty data"
        return f"JSON {type(payload).__name__}"
    err = _error(payload)
    kind = payload.get("type")
    if isinstance(kind, str) and kind and kind != "error":
        text = _typed(kind, payload)
        if err and kind not in ("response.failed",):
            return err
        return text
    if "choices" in payload or payload.get("object") == "chat.completion.chunk":
        return _chunk(payload)
    if err:
        return err
    usage = _usage(payload.get("usage"))
    return usage or ", ".join(list(payload)[:6])
