"""A damaged history index on disk: the real window says so in the History view and keeps
listing and saving runs (set aside, never turned off)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from playground.runs.history import RunHistory


def _listed(view: Any) -> list[str]:
    tree = view.tree
    return [
        tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
        for i in range(tree.topLevelItemCount())
    ]


@pytest.fixture
def damaged_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(data))
    history = RunHistory()
    rec = history.start_run("chat")
    rec.on_request("POST", "http://127.0.0.1:1/v1/chat/completions", {}, b'{"model": "m"}')
    rec.on_end(0.1)
    return history.index_path


@pytest.mark.parametrize(
    "content",
    [
        lambda old: json.dumps({**old, "runs": [{**old["runs"][0], "started_at": 5}]}),
        lambda old: json.dumps({**old, "runs": [{**old["runs"][0], "http_status": "x"}]}),
        lambda old: "[" * 50_000,
        None,  # a folder in the index's place
    ],
    ids=["started_at-int", "http_status-str", "deep", "folder"],
)
def test_history_keeps_working_in_the_window(
    damaged_data: Path, content: Any, window: Any, qloop: Any, send_and_wait: Any
) -> None:
    old = json.loads(damaged_data.read_text())
    kept = old["runs"][0]["id"]
    damaged_data.unlink()
    if content is None:
        damaged_data.mkdir()
    else:
        damaged_data.write_text(content(old))
    view = window.docks.history_view
    assert "set aside" in view.message or "wrong type" in view.message
    view.set_route("chat")
    assert kept in _listed(view)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    window.history.writer.flush()
    view.refresh()  # the hidden dock lists again when shown; here, at once
    assert len(_listed(view)) == 2
    saved = {r["id"] for r in json.loads(damaged_data.read_text())["runs"]}
    assert kept in saved and len(saved) == 2
