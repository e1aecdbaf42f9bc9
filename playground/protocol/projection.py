"""The one JSON projection of a ``StreamState``: what ``inspect --json``, the headless dump and
compare all report of a run.

Tool calls: every call the state holds, in arrival order, each saying which choice it belongs
to and whether the server ran it (Responses' built-in tools, Anthropic's ``server_tool_use``).
Dropping server calls or choices other than 0 would hide what the stream said; a reader that
wants only the client's calls of the first choice filters on ``server`` and ``choice``.
``server_tool_calls`` repeats the server's calls, the key inspect has always had.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from playground.protocol import safe_json

if TYPE_CHECKING:  # the window imports this at startup; the state module loads with a run
    from playground.protocol.state import StreamState, ToolCallState

__all__ = ["parsed_tool_calls", "state_json", "tool_call_json"]


def tool_call_json(call: ToolCallState, *, pieces: bool = False) -> dict[str, Any]:
    """One tool call: ``{id, name, arguments, valid_json, choice, server}``; ``pieces``: the
    arguments as their ``TextBuffer``, not joined (see ``state_json``)."""
    return call.as_json(pieces=pieces) | {"choice": call.choice, "server": call.server}


def parsed_tool_calls(state: StreamState | None) -> list[dict[str, Any]]:
    """Tool calls as ``{name, arguments}``, arguments parsed when they are JSON (for diffs)."""
    out: list[dict[str, Any]] = []
    for call in state.tool_calls if state is not None else []:
        text = call.arguments.value
        try:
            args: Any = safe_json.loads(text) if text.strip() else {}
        except ValueError:
            args = text
        out.append({"name": call.name, "arguments": args})
    return out


def state_json(state: StreamState, *, pieces: bool = False) -> dict[str, Any]:
    """The JSON of a state (the keys docs/design.md and README.md name for ``inspect --json``).

    ``pieces``: tool calls' arguments as their ``TextBuffer``, never joined, for a writer that
    writes them piece by piece (``json_out.write_json``): megabytes of arguments joined whole
    cost a copy beside the pieces while the join runs."""
    err = state.error
    audio = state.audio
    return {
        "route": state.route,
        "status": state.status,
        "finish": state.finish,
        "text": state.text,
        "reasoning": state.reasoning,
        "refusal": state.refusal,
        "tool_calls": [tool_call_json(c, pieces=pieces) for c in state.tool_calls],
        "server_tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments if pieces else c.arguments.value}
            for c in state.tool_calls
            if c.server
        ],
        "choices": [
            {
                "index": c.index,
                "text": c.text.value,
                "reasoning": c.reasoning.value,
                "refusal": c.refusal.value,
                "finish": c.finish,
            }
            for _, c in sorted(state.choices.items())
        ],
        "images": [i.as_json() | {"event": i.item} for i in state.images],
        "audio": None
        if audio is None
        else {
            "format": audio.format,
            "bytes": len(audio.data),
            "seconds": round(audio.seconds, 3),
            "sample_rate": audio.sample_rate,
            "channels": audio.channels,
            "chunks": audio.chunks,
            "sha256": hashlib.sha256(bytes(audio.data)).hexdigest(),
        },
        "segments": list(state.segments),
        "signatures": [{"kind": kind, "chars": len(value)} for kind, value in state.signatures],
        "usage": state.usage,
        "error": err.message if err is not None else None,
        "error_detail": None
        if err is None
        else {"message": err.message, "type": err.type, "code": err.code, "status": err.status},
        "events": state.events,
        "comments": state.comments,
        "findings": [f.as_json() for f in state.findings],
        **({"findings_omitted": dict(state.findings_omitted)} if state.findings_omitted else {}),
    }
