"""When the model list cannot be had, the window says why; an unknown --provider lists the ids."""

from __future__ import annotations

from typing import Any

import pytest


def test_a_server_without_a_model_list_is_said_in_the_window(
    window: Any, qloop: Any, sim: Any
) -> None:
    bar = window.provider_bar
    bar.set_provider("custom")
    base = sim.base_url.rstrip("/").removesuffix("/v1") + "/gateway/v1"  # no /models there
    bar.base_url_edit.setText(base)
    failed: list[str] = []
    bar.modelsFailed.connect(failed.append)

    async def refresh() -> None:
        bar.refresh_button.click()

    qloop.run(refresh())
    qloop.wait_until(lambda: bool(failed), timeout=10)
    said = "This server has no /gateway/v1/models (HTTP 404): type a model name"
    assert failed == [said]
    assert window.statusBar().currentMessage() == said
    assert said in bar.refresh_button.toolTip()
    assert bar.model_combo.isEditable()  # a name can still be typed


def test_a_listed_model_clears_the_note(window: Any, qloop: Any) -> None:
    bar = window.provider_bar
    bar.models_note = "stale"
    bar.models = []

    async def refresh() -> None:
        bar.load_models()

    qloop.run(refresh())
    qloop.wait_until(lambda: bool(bar.models), timeout=10)
    assert bar.models_note == ""


@pytest.mark.parametrize(
    ("status", "listed", "said"),
    [
        (404, False, "This server has no /v1/models (HTTP 404): type a model name"),
        (401, False, "The model list was refused (HTTP 401): check the API key, or type a name"),
        (500, False, "The model list failed (HTTP 500): type a model name"),
        (200, False, "/v1/models answered with no model list: type a model name"),
        (200, True, ""),
    ],
)
def test_each_failure_has_its_sentence(status: int, listed: bool, said: str) -> None:
    from playground.ui.window.provider_bar import models_failure

    assert models_failure("https://h.example/v1/models", status, listed) == said


def test_an_unknown_provider_lists_the_known_ids(capsys: pytest.CaptureFixture[str]) -> None:
    from playground.transport.providers import PROVIDERS
    from playground.ui.app import main

    assert main(["--provider", "sim"]) == 2
    err = capsys.readouterr().err
    ids = ", ".join(p.id for p in PROVIDERS)
    assert err == f"playground: unknown provider 'sim'; expected one of {ids}\n"
    assert "simulator" in ids
