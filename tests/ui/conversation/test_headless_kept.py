"""Kept conversations headless, in subprocesses on the built-in simulator: several --prompt
turns saved as one conversation, `playground conversations list`, and --open-conversation
opening one and, with --prompt, continuing it with every earlier turn in the request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROUTES = ("chat", "responses", "messages")


def _env(tmp: Path) -> dict[str, str]:
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PLAYGROUND_SETTINGS=str(tmp / "settings.ini"),
        PLAYGROUND_DATA_DIR=str(tmp / "data"),
    )


def _playground(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "playground", *args],
        capture_output=True,
        text=True,
        timeout=90,
        env=_env(tmp),
    )


def _run(tmp: Path, *args: str) -> dict[str, Any]:
    dump = tmp / "dump.json"
    proc = _playground(
        tmp, *args, "--pace", "instant", "--dump-state", str(dump), "--exit-when-done"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    value: dict[str, Any] = json.loads(dump.read_text())
    return value


def _listed(tmp: Path) -> list[dict[str, Any]]:
    proc = _playground(tmp, "conversations", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for v in value for s in _strings(v)] if isinstance(value, list) else []


def _texts(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("route", ROUTES)
def test_a_conversation_is_kept_then_opened_and_continued(tmp_path: Path, route: str) -> None:
    _run(tmp_path, "--route", route, "--prompt", "Tell me about Paris", "--prompt", "And Rome?")
    rows = _listed(tmp_path)
    assert len(rows) == 1  # the two prompts are one conversation, not two
    row = rows[0]
    assert set(row) == {"id", "title", "route", "model", "turns", "updated"}
    assert row["title"] == "Tell me about Paris" and row["route"] == route
    assert row["turns"] == 4 and row["model"]

    opened = _run(tmp_path, "--open-conversation", row["id"])
    assert opened["requests"] == []  # opened alone: shown, nothing sent
    users = [t["text"] for t in opened["thread"] if t["role"] == "user"]
    assert users == ["Tell me about Paris", "And Rome?"]

    continued = _run(tmp_path, "--open-conversation", row["id"], "--prompt", "Which is older?")
    body = continued["requests"][-1]["body"]
    sent = _texts(body)
    # Every earlier turn travels with the new prompt, answers included.
    assert sent.index("Tell me about Paris") < sent.index("And Rome?") < sent.index("Which is")
    answers = [t["text"] for t in opened["thread"] if t["role"] == "assistant"]
    strings = _strings(body)
    assert len(answers) == 2 and all(a and any(a[:40] in s for s in strings) for a in answers)
    again = _listed(tmp_path)
    assert [r["id"] for r in again] == [row["id"]] and again[0]["turns"] == 6


def test_the_plain_list_and_an_empty_folder(tmp_path: Path) -> None:
    proc = _playground(tmp_path, "conversations", "list")
    assert proc.returncode == 0 and proc.stdout.strip() == "No saved conversations."
    assert _listed(tmp_path) == []
    _run(tmp_path, "--route", "chat", "--prompt", "Hello there")
    proc = _playground(tmp_path, "conversations", "list")
    assert "Hello there" in proc.stdout and "chat" in proc.stdout


def test_an_unknown_or_mismatched_conversation_is_one_line(tmp_path: Path) -> None:
    proc = _playground(tmp_path, "--open-conversation", "nope", "--exit-when-done")
    assert proc.returncode == 2 and "no conversation nope" in proc.stderr
    assert "Traceback" not in proc.stderr
    _run(tmp_path, "--route", "chat", "--prompt", "Hello")
    (row,) = _listed(tmp_path)
    proc = _playground(tmp_path, "--open-conversation", row["id"], "--route", "messages")
    assert proc.returncode == 2 and "is a chat conversation" in proc.stderr
