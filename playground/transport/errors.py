"""Transport failures as one sentence a person understands, and HTTP error statuses described."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from playground.protocol import safe_json
from playground.protocol.errors import first_message

__all__ = ["TRANSPORT_ERROR_KINDS", "TransportError", "TransportErrorKind", "describe_http_error"]

TransportErrorKind = Literal[
    "connect_refused",
    "dns",
    "tls",
    "timeout_connect",
    "timeout_first_byte",
    "stall",
    "dropped",
    "insecure_key_refused",
    "other",
]
TRANSPORT_ERROR_KINDS: tuple[str, ...] = get_args(TransportErrorKind)


@dataclass(eq=False)  # hashable by identity, like every exception
class TransportError(Exception):
    """A failure below HTTP: ``kind`` for code, ``message`` for people (no key, no traceback)."""

    kind: TransportErrorKind
    message: str

    def __post_init__(self) -> None:
        super().__init__(self.kind, self.message)  # args, so it pickles and copies like any error

    def __str__(self) -> str:
        return self.message


# What each status usually means on an OpenAI-compatible gateway (docs/protocol.md §7).
_STATUS_MEANING: dict[int, str] = {
    400: "The server rejected the request as invalid",
    401: "The server did not accept the API key (missing or wrong)",
    402: "The account has run out of credits",
    403: "The API key is not allowed to do this",
    404: "The server has no such route or model",
    408: "The server timed out waiting for the request",
    409: "The request conflicts with the server's state",
    413: "The request is too large for the server",
    422: "The server understood the request but cannot process its parameters",
    429: "Too many requests: the server is rate limiting",
    500: "The server failed with an internal error",
    502: "The gateway could not reach the model",
    503: "The service is unavailable or overloaded",
    504: "The gateway timed out waiting for the model",
}


def _envelope_message(body: bytes, content_type: str | None) -> str | None:
    """The message of a JSON error body: nested, flat, OpenRouter, Anthropic or bare {"message"}."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        data = safe_json.loads(text)
    except safe_json.JsonTooDeep:
        return first_message(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(
        error, dict
    ):  # {"error": {"message": ...}} and Anthropic's {"type":"error","error":{...}}
        message = error.get("message")
        if isinstance(message, str) and message.strip():
            return message.strip()
    if isinstance(error, str) and error.strip():  # {"error": "..."}
        return error.strip()
    for key in ("message", "detail"):  # the gateway's bare {"message": "No API key provided"}
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _retry_phrase(retry_after: str | None) -> str:
    if not retry_after:
        return ""
    value = retry_after.strip()
    if value.isdigit():
        seconds = int(value)
        return f" Retry after {seconds} second{'s' if seconds != 1 else ''}."
    return f" Retry after {value}."


def describe_http_error(
    status: int, body: bytes, content_type: str | None, retry_after: str | None = None
) -> str:
    """One sentence for a non-2xx answer, with the server's own message when it sent one."""
    meaning = _STATUS_MEANING.get(status)
    if meaning is None:
        meaning = "The server failed" if status >= 500 else "The server refused the request"
    head = f"HTTP {status}: {meaning}"
    message = _envelope_message(body, content_type)
    if message is not None:
        if len(message) > 300:
            message = message[:300] + "…"
        sentence = f"{head} — “{message.rstrip('.')}”."
    elif not body.strip():
        sentence = f"{head} (the response body was empty)."
    else:
        kind = (content_type or "unknown type").split(";")[0].strip()
        sentence = f"{head} (the body was not a JSON error: {len(body)} bytes of {kind})."
    return sentence + _retry_phrase(retry_after)
