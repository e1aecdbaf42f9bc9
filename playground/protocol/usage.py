"""The four vendors' usage objects in one vocabulary: input, output, reasoning, cached, total."""

from __future__ import annotations

from typing import Any

__all__ = ["normalize_usage"]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _nested(usage: dict[str, Any], outer: str, inner: str) -> int | None:
    found = usage.get(outer)
    return _int(found.get(inner)) if isinstance(found, dict) else None


def normalize_usage(usage: dict[str, Any] | None) -> dict[str, int]:
    """The four vendors' usage shapes as ``input/output/reasoning/cached/total`` (ints only).

    Chat: prompt/completion_tokens + completion_tokens_details.reasoning_tokens (docs/protocol.md
    §2); Responses, images, speech: input/output_tokens + output_tokens_details (§3, §5, §6);
    Messages: input/output_tokens + cache_read_input_tokens (§4, cumulative: the state overwrites).
    """
    if not isinstance(usage, dict):
        return {}
    out: dict[str, int] = {}
    first = {
        "input": (_int(usage.get("prompt_tokens")), _int(usage.get("input_tokens"))),
        "output": (_int(usage.get("completion_tokens")), _int(usage.get("output_tokens"))),
        "reasoning": (
            _nested(usage, "completion_tokens_details", "reasoning_tokens"),
            _nested(usage, "output_tokens_details", "reasoning_tokens"),
        ),
        "cached": (
            _nested(usage, "prompt_tokens_details", "cached_tokens"),
            _nested(usage, "input_tokens_details", "cached_tokens"),
            _int(usage.get("cache_read_input_tokens")),
        ),
        "total": (_int(usage.get("total_tokens")),),
    }
    for key, options in first.items():
        for value in options:
            if value is not None:
                out[key] = value
                break
    if "total" not in out and "input" in out and "output" in out:
        out["total"] = out["input"] + out["output"]
    return out
