"""What ``--dump-state`` shows of a conversation: the ``thread`` projection, and request bodies
with long base64 replaced by its size so a dump stays readable and small."""

from __future__ import annotations

import re
from typing import Any, Final

from playground.protocol.conversation.model import Conversation, Turn

__all__ = ["BASE64_KEEP", "redact_base64", "thread"]

BASE64_KEEP: Final = 64  # base64 up to this many characters is kept as it is
_B64: Final = re.compile(r"[A-Za-z0-9+/\-_]+={0,2}")
_DATA_URL: Final = re.compile(r"(data:[^,;]*(?:;[^,;]*)*;base64,)(.*)", re.S)


def _entry(turn: Turn) -> dict[str, Any]:
    return {
        "role": turn.role,
        "text": turn.text,
        "reasoning": turn.reasoning,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.tool_calls
        ],
        "tool_call_id": None,
        "attachments": [
            {"mime": i.mime, "bytes": len(i.data) if i.data is not None else None}
            | ({"url": i.url} if i.url is not None else {})
            for i in turn.images
        ],
    }


def thread(conversation: Conversation) -> list[dict[str, Any]]:
    """Each turn as ``{role, text, reasoning, tool_calls: [{id, name, arguments}], tool_call_id,
    attachments: [{mime, bytes}]}``; the system text first as a ``system`` turn; a tool turn
    gives one ``tool`` entry per result (its ``text`` the result, ``tool_call_id`` its call)."""
    out: list[dict[str, Any]] = []
    if conversation.system is not None:
        out.append(_entry(Turn.of("system", conversation.system)))
    for turn in conversation.turns:
        if turn.role != "tool":
            out.append(_entry(turn))
            continue
        for result in turn.tool_results:
            entry = _entry(Turn.of("tool", result.content))
            entry["tool_call_id"] = result.call_id
            out.append(entry)
    return out


def _size(b64: str) -> int:
    body = b64.rstrip("=")
    return len(body) * 3 // 4


def _redacted(text: str) -> str:
    if len(text) <= BASE64_KEEP:
        return text
    if _B64.fullmatch(text):
        return f"<{_size(text)} bytes base64>"
    found = _DATA_URL.fullmatch(text)
    if found and len(found.group(2)) > BASE64_KEEP and _B64.fullmatch(found.group(2)):
        # A data URL keeps its media type: only the payload is replaced.
        return f"{found.group(1)}<{_size(found.group(2))} bytes base64>"
    return text


def redact_base64(value: Any) -> Any:
    """``value`` (a JSON body) with every base64 string longer than 64 characters replaced by
    ``"<N bytes base64>"`` (N the decoded size); a data URL keeps its ``data:...;base64,``."""
    if isinstance(value, str):
        return _redacted(value)
    if isinstance(value, dict):
        return {k: redact_base64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_base64(v) for v in value]
    return value
