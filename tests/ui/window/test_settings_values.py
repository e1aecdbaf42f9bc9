"""Settings values read back are checked with their range, and a damaged settings file or value
turns nothing off: the real window starts on its defaults and remembers again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playground.ui.runtime.timeouts import first_byte_timeout, stall_seconds


@pytest.mark.parametrize(
    ("stored", "expected"),
    [(-5, 60.0), (0, 60.0), ("nan", 60.0), ("inf", 60.0), (1e9, 60.0), ("x", 60.0), (12, 12.0)],
)
def test_first_byte_timeout_out_of_range_falls_back_to_the_default(
    settings: Any, stored: object, expected: float
) -> None:
    settings.setValue("first_byte_timeout", stored)
    assert first_byte_timeout(settings) == expected


@pytest.mark.parametrize(
    ("stored", "expected"), [(-1, 10.0), (0, 10.0), (601, 10.0), (3, 3.0), (0.5, 0.5)]
)
def test_stall_seconds_out_of_range_falls_back_to_the_default(
    settings: Any, stored: object, expected: float
) -> None:
    settings.setValue("stall_seconds", stored)
    assert stall_seconds(settings) == expected


@pytest.fixture
def hostile_settings(settings: Any) -> Any:
    settings.setValue("first_byte_timeout", -5)
    settings.setValue("stall_seconds", "nan")
    settings.setValue("inspector/columns", "[" * 100_000)
    settings.sync()
    return settings


def test_the_window_runs_on_defaults_over_hostile_values(
    hostile_settings: Any, window: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("chat")
    assert panel.session.first_byte_timeout == 60.0
    assert panel.session.stall_seconds == 10.0
    assert window.inspector.column_widths == {}
    assert send_and_wait(panel) == "complete"  # a negative timeout would fail every run


@pytest.mark.parametrize(
    "columns", ['{"0": -4}', '{"zero": 10}', '{"1": true}', "[1, 2]", '{"99999": 3}']
)
def test_remembered_columns_of_the_wrong_shape_are_ignored(columns: str) -> None:
    from playground.ui.window.remembered import _column_widths

    assert _column_widths(columns) is None
    assert _column_widths('{"0": 120, "3": 40}') == {0: 120, 3: 40}


def test_a_folder_in_the_settings_file_place_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qapp: Any
) -> None:
    from PySide6.QtCore import QSettings

    from playground.ui.app import _settings

    path = tmp_path / "settings.ini"
    path.mkdir()
    monkeypatch.setenv("PLAYGROUND_SETTINGS", str(path))
    settings, message = _settings()
    assert message is not None and "set aside" in message
    settings.setValue("probe", "ok")
    settings.sync()
    assert settings.status() == QSettings.Status.NoError and path.is_file()


@pytest.fixture
def odd_provider_settings(settings: Any) -> Any:
    settings.setValue("provider", "custom")
    settings.setValue("model/custom/chat", ["a", "b"])
    settings.setValue("base_url/custom", 42)
    settings.sync()
    return settings


def test_remembered_model_and_url_of_the_wrong_type_fall_back(
    odd_provider_settings: Any, window: Any
) -> None:
    bar = window.provider_bar
    window.show_panel("chat")
    assert bar.provider().id == "custom"
    assert "[" not in bar.model() and bar.model_for("chat") == bar.model()
    assert bar.base_url_edit.text() != "42"
