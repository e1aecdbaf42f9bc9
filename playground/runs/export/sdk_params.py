"""The request parameters each SDK method takes by name; the rest of a body goes in extra_body."""

from __future__ import annotations

__all__ = ["SDK_PARAMS"]

# Parameters each SDK method has taken for a long time; anything else goes in extra_body so
# an older or newer SDK still sends it unchanged.
SDK_PARAMS: dict[str, frozenset[str]] = {
    "chat": frozenset(
        [
            "messages",
            "model",
            "stream",
            "temperature",
            "max_tokens",
            "max_completion_tokens",
            "reasoning_effort",
            "tools",
            "tool_choice",
            "n",
            "stream_options",
            "top_p",
            "stop",
            "seed",
            "response_format",
            "parallel_tool_calls",
            "user",
            "logprobs",
            "top_logprobs",
            "presence_penalty",
            "frequency_penalty",
            "metadata",
            "store",
        ]
    ),
    "responses": frozenset(
        [
            "input",
            "model",
            "instructions",
            "stream",
            "temperature",
            "max_output_tokens",
            "reasoning",
            "tools",
            "tool_choice",
            "top_p",
            "text",
            "store",
            "metadata",
            "parallel_tool_calls",
            "previous_response_id",
            "include",
            "truncation",
            "user",
        ]
    ),
    "messages": frozenset(
        [
            "max_tokens",
            "messages",
            "model",
            "system",
            "stream",
            "temperature",
            "thinking",
            "tools",
            "tool_choice",
            "top_p",
            "top_k",
            "stop_sequences",
            "metadata",
        ]
    ),
    "images": frozenset(
        [
            "prompt",
            "model",
            "n",
            "size",
            "quality",
            "stream",
            "partial_images",
            "output_format",
            "background",
            "output_compression",
            "moderation",
            "response_format",
            "style",
            "user",
        ]
    ),
    "speech": frozenset(
        ["input", "model", "voice", "instructions", "response_format", "speed", "stream_format"]
    ),
    "transcription": frozenset(
        [
            "model",
            "language",
            "prompt",
            "response_format",
            "stream",
            "temperature",
            "include",
            "timestamp_granularities",
        ]
    ),
}
