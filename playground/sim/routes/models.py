"""GET /v1/models: a few presets in the OpenAI list shape, each saying what it serves.

Beside OpenAI's ``{id, object, created, owned_by}`` each model says which routes serve it
(``routes``) and, as OpenRouter's list does (docs/protocol.md §7), its ``architecture`` modalities,
so the window's model picker can list only the models of the panel's route.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from playground.sim.context import SimRequest

CREATED = 1767225600  # 2026-01-01, fixed so the list is stable
_TEXT = ["chat", "responses", "messages"]


def _arch(inputs: list[str], outputs: list[str]) -> dict[str, list[str]]:
    return {"input_modalities": inputs, "output_modalities": outputs}


PRESETS: list[dict[str, Any]] = [
    {
        "id": "sim-chat",
        "architecture": _arch(["text"], ["text"]),
        "routes": _TEXT,
        "streaming": True,
        "reasoning": False,
        "tools": True,
        "images": False,
        "description": "Fast text model: chat, responses and messages, with tools.",
    },
    {
        "id": "sim-reasoner",
        "architecture": _arch(["text"], ["text"]),
        "routes": _TEXT,
        "streaming": True,
        "reasoning": True,
        "tools": True,
        "images": False,
        "description": "Thinks first (reasoning deltas, keep-alives), then answers.",
    },
    {
        "id": "sim-image",
        "architecture": _arch(["text"], ["image"]),
        "routes": ["images"],
        "streaming": True,
        "reasoning": False,
        "tools": False,
        "images": True,
        "description": "Procedural pictures with partial images.",
    },
    {
        "id": "sim-tts",
        "architecture": _arch(["text"], ["audio"]),
        "routes": ["speech"],
        "streaming": True,
        "reasoning": False,
        "tools": False,
        "images": False,
        "description": "Voice-like speech, PCM 24 kHz over SSE.",
    },
    {
        "id": "sim-transcribe",
        "architecture": _arch(["audio"], ["text"]),
        "routes": ["transcription"],
        "streaming": True,
        "reasoning": False,
        "tools": False,
        "images": False,
        "description": "Transcribes the simulator's own speech back to its text.",
    },
    {
        "id": "sim-music",
        "architecture": _arch(["text"], ["audio"]),
        "routes": ["music"],
        "streaming": True,
        "reasoning": False,
        "tools": False,
        "images": False,
        "description": "Async music jobs streamed as WAV.",
    },
]


def model_list() -> dict[str, Any]:
    data = []
    for preset in PRESETS:
        data.append(
            {
                "id": preset["id"],
                "object": "model",
                "created": CREATED,
                "owned_by": "playground-sim",
                **{k: v for k, v in preset.items() if k != "id"},
                "capabilities": {
                    k: preset[k] for k in ("streaming", "reasoning", "tools", "images")
                },
            }
        )
    return {"object": "list", "data": data}


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    return req.json(model_list())
