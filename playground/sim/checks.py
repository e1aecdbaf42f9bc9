"""Requests malformed for their route get the 400 the real API gives, with its message and its
error envelope: a tool result without its call, an image part in the wrong shape or with bytes
that are no image, an Anthropic thinking block without its signature, an assistant turn with
tool calls that does not open with its thinking while thinking is on.

The messages are the vendors' own wording (OpenAI's chat and responses validation, Anthropic's
request validation, as their APIs answer them); the envelopes are docs/protocol.md §2 and §4.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from playground.sim.image_info import MEDIA_TYPES, from_base64, from_data_url, image_info
from playground.sim.plan import dicts

_CHAT_PARTS = ("text", "image_url", "input_audio", "refusal", "audio", "file")
_RESPONSES_PARTS = (
    "input_text",
    "input_image",
    "output_text",
    "refusal",
    "input_file",
    "computer_screenshot",
    "summary_text",
)
_ANTHROPIC_BLOCKS = (
    "text",
    "image",
    "document",
    "search_result",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "web_search_tool_result",
)
_UNSUPPORTED_IMAGE = (
    "You uploaded an unsupported image. Please make sure your image has of one the following "
    "formats: ['png', 'jpeg', 'gif', 'webp']."
)


class Invalid(Exception):
    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param, self.code = message, param, code


def _choices(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _type_name(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    return (
        "an object"
        if isinstance(value, dict)
        else "an array"
        if isinstance(value, list)
        else "a value"
    )


def _image_bytes(data: bytes | None) -> None:
    if data is None or image_info(data) is None:
        raise Invalid(_UNSUPPORTED_IMAGE, None, "invalid_image_format")


def _chat(body: dict[str, Any]) -> None:
    messages = dicts(body.get("messages"))
    open_calls: list[str] | None = None  # ids the last assistant message called, unanswered
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "tool":
            if open_calls is None:
                raise Invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            call_id = msg.get("tool_call_id")
            if call_id not in open_calls:
                raise Invalid(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in "
                    "'tool_calls' of previous message.",
                    f"messages.[{i}].tool_call_id",
                )
            open_calls.remove(str(call_id))
            continue
        if open_calls:
            raise Invalid(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(open_calls)}",
                f"messages.[{i}].role",
            )
        open_calls = None
        if role == "assistant" and dicts(msg.get("tool_calls")):
            open_calls = [str(c.get("id")) for c in dicts(msg.get("tool_calls"))]
        content = msg.get("content")
        if role != "user" or not isinstance(content, list):
            continue
        for j, part in enumerate(dicts(content)):
            where = f"messages[{i}].content[{j}]"
            kind = part.get("type")
            if kind not in _CHAT_PARTS:
                raise Invalid(
                    f"Invalid value: '{kind}'. Supported values are: {_choices(_CHAT_PARTS)}.",
                    f"{where}.type",
                    "invalid_value",
                )
            if kind == "image_url":
                image = part.get("image_url")
                if not isinstance(image, dict):
                    raise Invalid(
                        f"Invalid type for '{where}.image_url': expected an object, but got "
                        f"{_type_name(image)} instead.",
                        f"{where}.image_url",
                        "invalid_type",
                    )
                url = image.get("url")
                if isinstance(url, str) and url.startswith("data:"):
                    _image_bytes(from_data_url(url))


def _responses(body: dict[str, Any]) -> None:
    raw = body.get("input")
    items = dicts(raw) if isinstance(raw, list) else []
    called: set[str] = set()
    for i, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "function_call":
            called.add(str(item.get("call_id")))
        elif kind == "function_call_output":
            # With previous_response_id the calls live on the server (the simulator keeps none).
            if item.get("call_id") not in called and body.get("previous_response_id") is None:
                raise Invalid(
                    f"No tool call found for function call output with call_id "
                    f"{item.get('call_id')}.",
                    "input",
                )
        elif kind == "message" and isinstance(item.get("content"), list):
            for j, part in enumerate(dicts(item.get("content"))):
                where = f"input[{i}].content[{j}]"
                ptype = part.get("type")
                if ptype not in _RESPONSES_PARTS:
                    raise Invalid(
                        f"Invalid value: '{ptype}'. Supported values are: "
                        f"{_choices(_RESPONSES_PARTS)}.",
                        f"{where}.type",
                        "invalid_value",
                    )
                if ptype == "input_image":
                    url = part.get("image_url")
                    if url is not None and not isinstance(url, str):
                        raise Invalid(
                            f"Invalid type for '{where}.image_url': expected a string, but got "
                            f"{_type_name(url)} instead.",
                            f"{where}.image_url",
                            "invalid_type",
                        )
                    if isinstance(url, str) and url.startswith("data:"):
                        _image_bytes(from_data_url(url))


def _anthropic_image(block: dict[str, Any], where: str) -> None:
    source = block.get("source")
    if not isinstance(source, dict):
        raise Invalid(f"{where}.image.source: Field required")
    if source.get("type") != "base64":
        return
    media = source.get("media_type")
    if media not in MEDIA_TYPES.values():
        raise Invalid(
            f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', "
            "'image/png', 'image/gif' or 'image/webp'"
        )
    data = from_base64(str(source.get("data") or ""))
    info = image_info(data) if data is not None else None
    if info is None:
        raise Invalid(f"{where}.image.source.base64.data: The image could not be processed")
    if info.media_type != media:
        raise Invalid(
            f"{where}.image.source.base64: The image was specified using the {media} media "
            f"type, but the image appears to be a {info.media_type} image"
        )


def _messages(body: dict[str, Any]) -> None:
    messages = dicts(body.get("messages"))
    uses: list[str] = []  # the previous assistant message's tool_use ids
    for i, msg in enumerate(messages):
        blocks = dicts(msg.get("content"))
        if msg.get("role") == "user":
            answered = [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_result" and str(block.get("tool_use_id")) not in uses:
                    raise Invalid(
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                        "block must have a corresponding `tool_use` block in the previous message."
                    )
            missing = [u for u in uses if u not in answered]
            if missing:
                raise Invalid(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message."
                )
        uses = []
        for j, block in enumerate(blocks):
            where = f"messages.{i}.content.{j}"
            kind = block.get("type")
            if kind not in _ANTHROPIC_BLOCKS:
                tags = ", ".join(f"'{t}'" for t in _ANTHROPIC_BLOCKS)
                raise Invalid(
                    f"{where}: Input tag '{kind}' found using 'type' does not match any of the "
                    f"expected tags: {tags}"
                )
            if kind == "image":
                _anthropic_image(block, where)
            elif kind == "thinking" and msg.get("role") == "assistant":
                if not isinstance(block.get("signature"), str):
                    raise Invalid(f"{where}.thinking.signature: Field required")
            elif kind == "tool_use" and msg.get("role") == "assistant":
                uses.append(str(block.get("id")))
    _thinking_leads(body, messages)


_THINKING_FIRST = (
    "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
    "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
    "include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "
    "Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


def _thinking_leads(body: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    """Anthropic, extended thinking with tool use: the last assistant turn, the one whose tool
    calls the request answers, must open with its thinking block (as the API answers it,
    "preceeding" included)."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return
    last = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "assistant"),
        None,
    )
    if last is None:
        return
    blocks = dicts(messages[last].get("content"))
    if not any(b.get("type") == "tool_use" for b in blocks):
        return
    first = blocks[0].get("type") if blocks else None
    if first not in ("thinking", "redacted_thinking"):
        raise Invalid(
            f"messages.{last}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
            f"found `{first}`. {_THINKING_FIRST}"
        )


def check(route: str, body: dict[str, Any], generation_id: str) -> JSONResponse | None:
    """The 400 answer to a request malformed for ``route``, else None."""
    try:
        {"chat": _chat, "responses": _responses, "messages": _messages}[route](body)
    except Invalid as bad:
        if route == "messages":
            envelope: dict[str, Any] = {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": bad.message},
                "request_id": "req_" + generation_id.removeprefix("gen-"),
            }
        else:
            envelope = {
                "error": {
                    "message": bad.message,
                    "type": "invalid_request_error",
                    "param": bad.param,
                    "code": bad.code,
                }
            }
        return JSONResponse(envelope, status_code=400, headers={"X-Generation-Id": generation_id})
    return None
