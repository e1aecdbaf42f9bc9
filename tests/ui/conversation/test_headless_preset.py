"""`playground --preset NAME`: a saved preset opened before the headless run, through the real
entry point on the real simulator (its thread sent on, its canned tool results answering)."""

from __future__ import annotations

from pathlib import Path

import pytest
from headless_helpers import run_headless_batch

from playground.protocol.requests import SAMPLE_TOOL
from playground.runs.presets import Preset, save_preset
from playground.ui.app import UsageError, parse_args

FIRST = "Tell me about the Eiffel Tower in Paris"
CANNED = '{"temp": 21, "sky": "clear"}'

TOWER = Preset(
    name="Tower talk",
    route="chat",
    model="sim-reasoner",
    system="Be brief.",
    body={
        "model": "sim-reasoner",
        "stream": True,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": FIRST},
            {"role": "assistant", "content": "It is a wrought-iron tower."},
            {"role": "user", "content": "Who built it?"},
        ],
    },
)
WEATHER = Preset(
    name="Weather desk",
    route="messages",
    model="sim-reasoner",
    body={
        "model": "sim-reasoner",
        "max_tokens": 1024,
        "stream": True,
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {
                "name": "get_weather",
                "description": SAMPLE_TOOL["function"]["description"],
                "input_schema": SAMPLE_TOOL["function"]["parameters"],
            }
        ],
    },
    canned={"get_weather": CANNED},
)


def test_a_preset_opened_headless(tmp_path: Path) -> None:
    # Each run has its own data folder (headless_helpers): run N's is tmp/runN/data.
    save_preset(TOWER, tmp_path / "run0" / "data" / "presets")
    save_preset(TOWER, tmp_path / "run1" / "data" / "presets")
    save_preset(WEATHER, tmp_path / "run2" / "data" / "presets")
    runs = run_headless_batch(
        tmp_path,
        [
            ("--preset", "Tower talk", "--pace", "instant"),
            ("--preset", "Tower talk", "--pace", "instant", "--prompt", "How tall is it?"),
            ("--preset", "Weather desk", "--pace", "instant", "--prompt", "Weather in Paris?"),
        ],
        parallel=3,
    )
    as_saved, follow_up, tools = (r.dump for r in runs)
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr[-400:] for r in runs]
    assert as_saved is not None and follow_up is not None and tools is not None
    # No --prompt: the preset's own body is sent, its thread first.
    assert as_saved["route"] == "chat" and as_saved["status"] == "complete"
    assert as_saved["requests"][0]["body"]["messages"] == TOWER.body["messages"]
    assert as_saved["text"].startswith(f'Following up on "{FIRST}".')
    # --prompt is the next user turn after the preset's thread.
    sent = follow_up["requests"][0]["body"]["messages"]
    assert sent == [*TOWER.body["messages"][:3], {"role": "user", "content": "How tall is it?"}]
    assert [t["role"] for t in follow_up["thread"]] == ["system"] + ["user", "assistant"] * 2
    # The preset's canned result answers the tool call, and the run goes on to its answer.
    assert tools["route"] == "messages" and tools["status"] == "complete"
    assert len(tools["requests"]) == 2
    assert tools["text"].startswith(f"The tool answered: {CANNED}")  # one call: no name


def test_a_preset_that_is_missing_or_for_another_route_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path))
    save_preset(TOWER, tmp_path / "presets")
    assert parse_args(["--preset", "Tower talk"]).route == "chat"  # the route is the preset's
    with pytest.raises(UsageError, match=r"^There is no preset named 'nope'.$"):
        parse_args(["--preset", "nope"])
    with pytest.raises(UsageError) as caught:
        parse_args(["--preset", "Tower talk", "--route", "responses"])
    assert str(caught.value) == "--preset 'Tower talk' is for chat, not --route responses."


def test_a_deeply_nested_preset_file_is_a_usage_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path))
    save_preset(TOWER, tmp_path / "presets")
    (tmp_path / "presets" / "Deep.json").write_text('{"a":' * 100_000)
    with pytest.raises(UsageError) as caught:
        parse_args(["--preset", "Deep"])
    assert str(caught.value) == (
        "The file Deep.json is nested deeper than 256 levels; "
        "it was set aside as Deep.json.corrupt."
    )
    with pytest.raises(UsageError, match=r"^There is no preset named 'Deep'.$"):
        parse_args(["--preset", "Deep"])
    (tmp_path / "presets" / "Other.json").write_text("[" * 100_000)
    assert parse_args(["--preset", "Tower talk"]).route == "chat"  # the rest keep working
