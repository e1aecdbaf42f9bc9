"""Request extras that make each route use its richer features (reasoning, tools, partials)."""

from __future__ import annotations

from typing import Any

EXTRAS: dict[str, dict[str, Any]] = {
    "/chat/completions": {
        "reasoning_effort": "low",
        "stream_options": {"include_usage": True},
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
    },
    "/responses": {
        "reasoning": {"effort": "low"},
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
    },
    "/messages": {
        "thinking": {"type": "enabled", "budget_tokens": 512},
        "tools": [
            {
                "name": "get_weather",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
    },
    "/images/generations": {"partial_images": 3},
    "/audio/speech": {"speed": 2.0},
}
