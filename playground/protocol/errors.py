"""Reading error objects in every shape gateways send: nested, flat, OpenRouter, Anthropic, bare."""

from __future__ import annotations

import re
from typing import Any, Final

from playground.protocol import safe_json
from playground.protocol.events import StreamError

__all__ = ["error_from_body", "error_from_object", "first_message", "payload_error"]


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _code(value: Any) -> str | int | None:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, str | int) else None


def error_from_object(obj: Any, status: int | None = None) -> StreamError | None:
    """An error dict, flat ``{message,type,code}`` or nested in ``error`` (docs/protocol.md §2-§7).

    Nested wins: ``{"type":"error","error":{...}}`` (Anthropic, OpenAI responses, OpenRouter) and
    ``{"error":{...}}`` (chat envelope). ``metadata.error_type`` (OpenRouter) fills a missing type.
    """
    if isinstance(obj, str):
        return StreamError(message=obj, status=status)
    if not isinstance(obj, dict):
        return None
    inner = obj.get("error")
    if isinstance(inner, dict):
        found = error_from_object(inner, status)
        if found is not None:
            return found
    elif isinstance(inner, str) and inner:
        return StreamError(message=inner, type=_str_or_none(obj.get("type")), status=status)
    message = obj.get("message")
    if not isinstance(message, str):
        detail = obj.get("detail")
        message = detail if isinstance(detail, str) else None
    if message is None:
        return None
    etype = _str_or_none(obj.get("type"))
    if etype == "error":
        etype = None
    if etype is None:
        etype = _str_or_none(obj.get("error_type"))
    metadata = obj.get("metadata")
    if etype is None and isinstance(metadata, dict):
        etype = _str_or_none(metadata.get("error_type"))
    return StreamError(message=message, type=etype, code=_code(obj.get("code")), status=status)


def payload_error(payload: Any) -> StreamError | None:
    """The error a stream payload carries, if any: top-level ``error`` or ``type == "error"``."""
    if not isinstance(payload, dict):
        return None
    inner = payload.get("error")
    if inner is not None and inner is not False:
        found = error_from_object(payload)
        if found is not None:
            return found
        return StreamError(message=str(inner))
    if payload.get("type") == "error":
        return error_from_object(payload) or StreamError(message="error")
    return None


_MESSAGE: Final = re.compile(rb'"message"\s*:\s*("(?:[^"\\]|\\.)*")', re.DOTALL)


def first_message(body: bytes) -> str | None:
    """The first ``"message"`` string of a JSON body too deep to read whole (a hostile or
    broken server), found without parsing the rest: the message is what the user needs."""
    found = _MESSAGE.search(body)
    if found is None:
        return None
    try:
        message = safe_json.loads(found.group(1))
    except ValueError:
        return None
    return message.strip() or None if isinstance(message, str) else None


def _shallow_message(body: bytes) -> dict[str, Any] | None:
    message = first_message(body)
    return {"error": {"message": message}} if message is not None else None


def error_from_body(status: int, body: bytes, content_type: str | None) -> StreamError:
    """A non-2xx answer's body as an error; non-JSON or empty bodies still give a message."""
    text = body.decode("utf-8", "replace").strip()
    if text:
        try:
            parsed = safe_json.loads(body)
        except safe_json.JsonTooDeep:
            # Keep the server's message: the first "message" string, read without the rest.
            parsed = _shallow_message(body)
        except ValueError:
            parsed = None
        found = error_from_object(parsed, status) if parsed is not None else None
        if found is not None:
            return found
        first = text.splitlines()[0][:300] if text else ""
        return StreamError(message=f"HTTP {status}: {first}", status=status)
    return StreamError(message=f"HTTP {status} (empty body)", status=status)
