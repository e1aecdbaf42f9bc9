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
from playground.sim.prompt_cache import model_cache_metadata

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


def _usd(value: float) -> str:
    return f"{value:.10f}".rstrip("0").rstrip(".")


def _pricing(per_million_in: float, per_million_out: float, **extra: float) -> dict[str, str]:
    """OpenRouter's ``pricing`` shape: strings of USD per token (cached input a tenth of the
    input, a 5 minute write 1.25 times it and a 1 hour write twice it, as Anthropic prices)."""
    base = per_million_in / 1e6
    out = {
        "prompt": _usd(base),
        "completion": _usd(per_million_out / 1e6),
        "input_cache_read": _usd(base / 10),
        "input_cache_write": _usd(base * 1.25),
        "input_cache_write_1h": _usd(base * 2),
    }
    return out | {k: _usd(v) for k, v in extra.items()}


# What each preset costs and holds (the prompt cache's lifetime and minimum come from the app).
_ACCOUNTS: dict[str, dict[str, Any]] = {
    "sim-chat": {"pricing": _pricing(1.0, 4.0), "context_length": 131072},
    "sim-reasoner": {
        "pricing": _pricing(2.0, 8.0, internal_reasoning=6e-6),
        "context_length": 200000,
    },
    "sim-image": {"pricing": _pricing(5.0, 40.0, image=0.04), "context_length": 32000},
    "sim-tts": {"pricing": _pricing(0.6, 12.0, audio_second=0.00025)},
    "sim-transcribe": {"pricing": _pricing(1.25, 5.0, audio_second=0.0001)},
    "sim-music": {"pricing": {"prompt": "0", "completion": "0", "audio_second": "0.001"}},
}


def accounts(preset: dict[str, Any], state: Any) -> dict[str, Any]:
    """A preset's ``pricing``, ``context_length`` and, on the text routes, ``prompt_cache``."""
    out = dict(_ACCOUNTS.get(preset["id"], {}))
    if any(route in _TEXT for route in preset["routes"]):
        out["prompt_cache"] = model_cache_metadata(state)
    return out


def model_list(state: Any = None) -> dict[str, Any]:
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
                **accounts(preset, state),
            }
        )
    return {"object": "list", "data": data}


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    return req.json(model_list(request.app.state))
