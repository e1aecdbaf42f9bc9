"""The Settings price table: edited, saved (atomically, in the data folder), read back, used by
the next run's cost on the status line; a cell that is not a price saves nothing; import and
export as JSON; the gateway's own prices listed read-only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from panel_helpers import say

from playground.runs.prices import load_prices, prices_path

pytestmark = pytest.mark.timeout(120)

MODEL = "house-model"  # the simulator answers any name, and prices none it does not list


@pytest.fixture
def no_price_file() -> Any:
    path = prices_path()
    path.unlink(missing_ok=True)
    yield path
    path.unlink(missing_ok=True)


def _dialog(window: Any) -> Any:
    from playground.ui.window.settings_dialog import SettingsDialog

    return SettingsDialog(window.settings, window)


def test_a_price_edited_saved_and_used_in_a_runs_cost(
    window: Any, qloop: Any, no_price_file: Path
) -> None:
    panel = window.panels["chat"]
    qloop.wait_until(lambda: bool(window.provider_bar.model_info), 15)
    panel.editor.set_model(MODEL)
    assert say(qloop, panel, "Hello there") == "complete"
    assert panel.status_line.cost.text() == "cost unknown"  # no price for it anywhere yet
    assert "Settings" in panel.status_line.cost.toolTip()
    dialog = _dialog(window)
    editor = dialog.prices
    gateway_rows = [
        editor.grid.item(r, 0).text()
        for r in range(editor.grid.rowCount())
        if not editor._editable(r)
    ]
    assert "sim-reasoner" in gateway_rows  # the simulator's own prices, read-only
    editor.set_price(MODEL, "input", "3")
    editor.set_price(MODEL, "cached_input", "0.3")
    editor.set_price(MODEL, "output", "12")
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    saved = json.loads(no_price_file.read_text(encoding="utf-8"))
    assert saved["format"] == "playground-prices/1"
    table = load_prices().table
    assert table[MODEL].input == pytest.approx(3e-6) and table[MODEL].output == pytest.approx(12e-6)
    assert table[MODEL].cache_write_5m is None  # empty: unknown, not 0
    # Read back into a new dialog as it was typed.
    again = _dialog(window).prices
    row = next(r for r in range(again.grid.rowCount()) if again.grid.item(r, 0).text() == MODEL)
    assert again.grid.item(row, 1).text() == "3" and again.grid.item(row, 5).text() == "12"
    # Used at once: the next run's cost is priced with it.
    assert say(qloop, panel, "Hello again") == "complete"
    usage = panel.session.state.usage
    expected = usage["prompt_tokens"] * 3e-6 + usage["completion_tokens"] * 12e-6
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    expected -= cached * (3e-6 - 0.3e-6)
    text = panel.status_line.cost.text()
    assert text.startswith("$"), text
    tip = panel.status_line.cost.toolTip()
    total = float(tip.rsplit("total: ", 1)[1].split()[0])
    assert total == pytest.approx(expected, rel=1e-9)


def test_a_cell_that_is_not_a_price_saves_nothing(window: Any, no_price_file: Path) -> None:
    dialog = _dialog(window)
    dialog.prices.set_price(MODEL, "input", "cheap")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "not a price" in dialog.prices.error.text()
    assert not no_price_file.exists()


def test_prices_exported_and_imported_as_json(
    window: Any, no_price_file: Path, tmp_path: Path
) -> None:
    editor = _dialog(window).prices
    editor.set_price(MODEL, "input", "2.5")
    editor.set_price(MODEL, "cache_write_1h", "5")
    shared = tmp_path / "shared.json"
    assert editor.export_file(shared)
    assert json.loads(shared.read_text(encoding="utf-8"))["models"][MODEL]["input"] == 2.5e-6
    other = _dialog(window).prices
    assert other.import_file(shared)
    assert other.table()[MODEL].cache_write_1h == pytest.approx(5e-6)
    broken = tmp_path / "broken.json"
    broken.write_text('{"models": {"x": {"input": -1}}}', encoding="utf-8")
    assert not other.import_file(broken) and "not imported" in other.error.text()
