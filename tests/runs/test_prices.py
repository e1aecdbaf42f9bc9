"""The price file: validated, written atomically, imported, and a bad one set aside as
``*.corrupt`` with a message (never read as prices, never a crash)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.protocol.accounting.models_meta import ModelInfo
from playground.protocol.accounting.prices import FILE_FORMAT, ModelPrices, table_from_json
from playground.runs.prices import import_prices, load_prices, price_for, prices_path, save_prices

GOOD = {
    "format": FILE_FORMAT,
    "currency": "USD",
    "models": {
        "gpt-4o": {"input": 2.5e-6, "cached_input": "0.00000125", "output": 1e-5},
        "claude": {"input": 3e-6, "cache_write_5m": 3.75e-6, "cache_write_1h": 6e-6},
    },
}


def test_saved_then_loaded(tmp_path: Path) -> None:
    table = table_from_json(GOOD)
    path = save_prices(table, tmp_path)
    assert path == prices_path(tmp_path) and json.loads(path.read_text())["format"] == FILE_FORMAT
    loaded = load_prices(tmp_path)
    assert loaded.messages == [] and loaded.table == table
    assert loaded.table["gpt-4o"].cached_input == 1.25e-6
    assert [p.name for p in tmp_path.iterdir()] == ["prices.json"]  # no temporary file left


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        json.dumps({"models": {"m": {"input": -1}}}),
        json.dumps({"models": {"m": {"inptu": 1e-6}}}),
        json.dumps({"models": {"m": {"input": "free"}}}),
        json.dumps({"format": "other/9", "models": {}}),
        json.dumps([1, 2]),
        "[" * 10000 + "]" * 10000,
        "\udcff",
    ],
)
def test_a_bad_file_is_set_aside(tmp_path: Path, text: str) -> None:
    path = prices_path(tmp_path)
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    loaded = load_prices(tmp_path)
    assert loaded.table == {}
    assert len(loaded.messages) == 1 and "set aside as prices.json.corrupt" in loaded.messages[0]
    assert not path.exists() and (tmp_path / "prices.json.corrupt").is_file()
    path.write_text("{also bad")
    assert "prices.json.1.corrupt" in load_prices(tmp_path).messages[0]


def test_import_merges_and_a_bad_import_writes_nothing(tmp_path: Path) -> None:
    save_prices(table_from_json(GOOD), tmp_path)
    source = tmp_path / "new.json"
    source.write_text(json.dumps({"models": {"gpt-4o": {"input": 5e-6}, "new": {"output": 1e-6}}}))
    table = import_prices(source, tmp_path)
    assert set(table) == {"gpt-4o", "claude", "new"}
    assert load_prices(tmp_path).table["gpt-4o"] == ModelPrices(input=5e-6)
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": {"x": {"input": -5}}}')
    with pytest.raises(ValueError, match=r"x\.input"):
        import_prices(bad, tmp_path)
    assert set(load_prices(tmp_path).table) == {"gpt-4o", "claude", "new"}


def test_the_gateways_prices_win_over_the_file() -> None:
    table = table_from_json(GOOD)
    gateway = ModelInfo("gpt-4o", prices=ModelPrices(input=1e-6, output=2e-6))
    assert price_for("gpt-4o", table, gateway) == gateway.prices
    assert price_for("gpt-4o", table, ModelInfo("gpt-4o")) == table["gpt-4o"]
    assert price_for("unknown", table) is None
