"""What the proxy learns from a request body: stream flag, audio format, the capture's view."""

from __future__ import annotations

import json
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from playground.protocol import safe_json

__all__ = ["RequestFacts", "facts_of"]


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """What the decoder and the capture need to know about a request."""

    stream_requested: bool
    audio_format: str | None
    model: str | None
    # The body as a capture stores it: the JSON itself, or for a multipart upload a JSON view of
    # its fields with each file as "@name (N bytes)", as the playground's own client keeps it
    # (transport/client.py RequestSpec.body_bytes): no audio file inlined as text.
    capture_body: bytes | None


def _multipart_fields(content_type: str, body: bytes) -> dict[str, Any] | None:
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1", "replace")
    try:
        message = BytesParser(policy=HTTP).parsebytes(head + body)
    except Exception:  # a malformed upload is relayed all the same; the capture keeps its size
        return None
    if not message.is_multipart():
        return None
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            fields[name] = f"@{filename} ({len(data)} bytes)"
        else:
            fields[name] = data.decode("utf-8", "replace")
    return fields


def _truthy(value: Any) -> bool:
    if isinstance(value, str):  # multipart forms send "true"/"false"
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


def facts_of(body: bytes | None, content_type: str | None) -> RequestFacts:
    """Read ``body`` (never raises): its stream flag, response format and model, if it has them."""
    if not body:
        return RequestFacts(False, None, None, None)
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    fields: dict[str, Any] | None = None
    capture_body = body
    if mime == "multipart/form-data" and content_type is not None:
        fields = _multipart_fields(content_type, body)
        view = fields if fields is not None else {"body": f"({len(body)} bytes, unreadable)"}
        capture_body = json.dumps(view, ensure_ascii=False).encode()
    else:
        try:
            loaded = safe_json.loads(body)
        except ValueError:
            loaded = None
        fields = loaded if isinstance(loaded, dict) else None
    if fields is None:
        return RequestFacts(False, None, None, capture_body)
    stream = _truthy(fields.get("stream", False)) or fields.get("stream_format") == "sse"
    fmt = fields.get("response_format")
    model = fields.get("model")
    return RequestFacts(
        stream,
        fmt if isinstance(fmt, str) else None,
        model if isinstance(model, str) else None,
        capture_body,
    )
