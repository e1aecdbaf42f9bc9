"""The model picker lists the models that serve the panel's route (the simulator's /v1/models
says which), and the Model box always shows the model the panel's body sends."""

from __future__ import annotations

import json
from typing import Any

from playground.ui.window.provider_bar import model_routes, models_for_route


def _items(window: Any) -> list[str]:
    combo = window.provider_bar.model_combo
    return [combo.itemText(i) for i in range(combo.count())]


def _load(window: Any, qloop: Any) -> None:
    async def load() -> None:
        window.provider_bar.load_models()

    qloop.run(load())
    qloop.wait_until(lambda: bool(window.provider_bar.models), timeout=5)


def test_each_route_lists_only_its_models(window: Any, qloop: Any) -> None:
    _load(window, qloop)
    expected = {
        "chat": ["sim-chat", "sim-reasoner"],
        "responses": ["sim-chat", "sim-reasoner"],
        "messages": ["sim-chat", "sim-reasoner"],
        "images": ["sim-image"],
        "speech": ["sim-tts"],
        "transcription": ["sim-transcribe"],
        "music": ["sim-music"],
    }
    for route, models in expected.items():
        panel = window.show_panel(route)
        qloop.sleep(0.02)
        assert _items(window) == models, route
        assert window.provider_bar.model() == panel.editor.body()["model"], route


def test_the_model_box_shows_the_model_a_typed_body_sends(window: Any, qloop: Any) -> None:
    _load(window, qloop)
    panel = window.show_panel("chat")
    bar = window.provider_bar
    assert bar.model() == "sim-reasoner" == panel.editor.body()["model"]
    body = panel.editor.body() | {"model": "sim-chat"}
    panel.editor.raw.setPlainText(json.dumps(body))
    panel.editor.flush()
    assert bar.model() == "sim-chat"  # typed in the JSON view: the box follows
    spec = window.requests.panel_spec("chat", panel.editor.body(), None, {})
    assert spec.json_body["model"] == "sim-chat"
    # ... and the other way: the box changes the body; another route keeps its own model.
    bar.model_combo.setCurrentText("sim-reasoner")
    assert panel.editor.body()["model"] == "sim-reasoner"
    window.show_panel("images")
    assert bar.model() == "sim-image"
    window.show_panel("chat")
    assert bar.model() == "sim-reasoner"


def test_models_without_route_metadata_are_listed_everywhere() -> None:
    payload = {
        "data": [
            {"id": "plain"},  # OpenAI's shape: nothing said, so every route lists it
            {"id": "drawer", "architecture": {"output_modalities": ["image"]}},
            {
                "id": "ear",
                "architecture": {"input_modalities": ["audio"], "output_modalities": ["text"]},
            },
            {
                "id": "talker",
                "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
            },
            "bare-id",
        ]
    }
    entries = model_routes(payload)
    assert models_for_route(entries, "chat") == ["plain", "talker", "bare-id"]
    assert models_for_route(entries, "images") == ["plain", "drawer", "bare-id"]
    assert models_for_route(entries, "transcription") == ["plain", "ear", "bare-id"]
    assert models_for_route(model_routes({"data": [{"id": "a"}, {"id": "b"}]}), "music") == [
        "a",
        "b",
    ]
