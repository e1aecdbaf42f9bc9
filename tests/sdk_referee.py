"""The official SDKs as referees: a body sent through ``openai`` or ``anthropic`` as written,
its streamed text read back, and the body the SDK really put on the wire."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai

# A second tool beside protocol.requests.SAMPLE_TOOL, for parallel calls.
TIME_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a timezone",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
}


def sdk_answer(base_url: str, route: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The SDK's streamed answer text for ``body`` (``**body`` as the call's arguments), and the
    one request body it sent, recorded by the SDK's own HTTP client."""
    sent: list[dict[str, Any]] = []
    text: list[str] = []
    sdk: Any = anthropic if route == "messages" else openai
    hooks = {"request": [lambda request: sent.append(json.loads(request.content))]}
    headers = {"X-Sim-Pace": "instant"}
    with sdk.DefaultHttpxClient(event_hooks=hooks, timeout=30) as http:
        if route == "messages":
            with anthropic.Anthropic(
                base_url=base_url.removesuffix("/v1"),
                api_key="sk-sim",
                max_retries=0,
                http_client=http,
                default_headers=headers,
            ) as ant:
                for event in ant.messages.create(**body):
                    if event.type == "content_block_delta" and event.delta.type == "text_delta":
                        text.append(event.delta.text)
        else:
            with openai.OpenAI(
                base_url=base_url,
                api_key="sk-sim",
                max_retries=0,
                http_client=http,
                default_headers=headers,
            ) as oai:
                if route == "chat":
                    for chunk in oai.chat.completions.create(**body):
                        text += [c.delta.content or "" for c in chunk.choices]
                else:
                    for event in oai.responses.create(**body):
                        if event.type == "response.output_text.delta":
                            text.append(event.delta)
    assert len(sent) == 1
    return "".join(text), sent[0]
