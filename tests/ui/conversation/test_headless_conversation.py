"""The headless conversation contract in a subprocess: several --prompt turns, --conversation,
--tool-result and --attach, and the dump's ``thread`` and ``requests``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from sdk_referee import TIME_TOOL

from playground.protocol.requests import SAMPLE_TOOL, to_anthropic_tool, to_responses_tool

ROUTES = ("chat", "responses", "messages")
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}
TURN_KEYS = {"role", "text", "reasoning", "tool_calls", "tool_call_id", "attachments"}


def _env(tmp: Path) -> dict[str, str]:
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PLAYGROUND_SETTINGS=str(tmp / "settings.ini"),
        PLAYGROUND_DATA_DIR=str(tmp / "data"),
    )


def _run(tmp: Path, *args: str) -> dict[str, Any]:
    dump = tmp / "dump.json"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "playground", *args, "--pace", "instant"),
            *("--model", "sim-reasoner", "--dump-state", str(dump), "--exit-when-done"),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env=_env(tmp),
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    value: dict[str, Any] = json.loads(dump.read_text())
    for turn in value["thread"]:
        assert set(turn) == TURN_KEYS
    return value


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for v in value for s in _strings(v)] if isinstance(value, list) else []


def _tools(route: str) -> str:
    converters: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "chat": dict,
        "responses": to_responses_tool,
        "messages": to_anthropic_tool,
    }
    convert = converters[route]
    return json.dumps({"tools": [convert(SAMPLE_TOOL), convert(TIME_TOOL)]})


@pytest.mark.parametrize("route", ROUTES)
def test_several_prompts_are_turns_of_one_conversation(tmp_path: Path, route: str) -> None:
    dump = _run(
        tmp_path,
        "--route",
        route,
        "--prompt",
        "Tell me about the Eiffel Tower in Paris",
        "--prompt",
        "How tall is it?",
    )
    assert dump["status"] == "complete"
    thread = dump["thread"]
    assert [t["role"] for t in thread] == ["user", "assistant", "user", "assistant"]
    assert thread[0]["text"] == "Tell me about the Eiffel Tower in Paris"
    assert thread[2]["text"] == "How tall is it?"
    assert thread[3]["text"] == dump["text"]
    assert dump["text"].startswith('Following up on "Tell me about the Eiffel Tower in Paris".')
    requests = dump["requests"]
    assert [r["path"] for r in requests] == [PATHS[route]] * 2
    # The second request carries the first answer: the whole thread went.
    assert thread[1]["text"] in _strings(requests[1]["body"])
    assert thread[1]["text"] not in _strings(requests[0]["body"])


@pytest.mark.parametrize("route", ROUTES)
def test_tool_results_answer_every_call_and_the_run_goes_on(tmp_path: Path, route: str) -> None:
    dump = _run(
        tmp_path,
        "--route",
        route,
        "--prompt",
        "What is the weather and the time in Paris?",
        "--body",
        _tools(route),
        "--tool-result",
        'get_weather={"temp_c": 18}',
        "--tool-result",
        'get_time={"time": "10:00"}',
    )
    assert dump["status"] == "complete"
    thread = dump["thread"]
    assert [t["role"] for t in thread] == ["user", "assistant", "tool", "tool", "assistant"]
    calls = thread[1]["tool_calls"]
    assert [c["name"] for c in calls] == ["get_weather", "get_time"]
    assert [(t["tool_call_id"], t["text"]) for t in thread[2:4]] == [
        (calls[0]["id"], '{"temp_c": 18}'),
        (calls[1]["id"], '{"time": "10:00"}'),
    ]
    assert dump["text"].startswith(
        'The tool answered: get_weather: {"temp_c": 18}; get_time: {"time": "10:00"}'
    )
    requests = dump["requests"]
    assert len(requests) == 2
    second = requests[1]["body"]
    if route == "chat":
        assert [m["tool_call_id"] for m in second["messages"] if m["role"] == "tool"] == [
            c["id"] for c in calls
        ]
    elif route == "responses":
        outputs = [i for i in second["input"] if i.get("type") == "function_call_output"]
        assert [i["call_id"] for i in outputs] == [c["id"] for c in calls]
    else:
        blocks = second["messages"][-1]["content"]
        assert [b["tool_use_id"] for b in blocks] == [c["id"] for c in calls]


def _png(tmp: Path) -> Path:
    buf = io.BytesIO()
    PILImage.new("RGB", (64, 48), (10, 120, 200)).save(buf, "PNG")
    path = tmp / "pic.png"
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize("route", ["responses", "messages"])
def test_a_conversation_file_and_an_attached_image(tmp_path: Path, route: str) -> None:
    conversation = tmp_path / "conversation.json"
    conversation.write_text(
        json.dumps(
            {
                "system": "Be brief.",
                "messages": [
                    {"role": "user", "content": "Tell me about the Eiffel Tower in Paris"},
                    {"role": "assistant", "content": "It is a wrought-iron tower."},
                ],
            }
        )
    )
    picture = _png(tmp_path)
    dump = _run(
        tmp_path,
        "--route",
        route,
        "--conversation",
        str(conversation),
        "--prompt",
        "What is in this picture?",
        "--attach",
        str(picture),
    )
    thread = dump["thread"]
    assert [t["role"] for t in thread] == ["system", "user", "assistant", "user", "assistant"]
    assert thread[0]["text"] == "Be brief."
    assert thread[3]["attachments"] == [{"mime": "image/png", "bytes": picture.stat().st_size}]
    assert dump["text"].startswith(
        'Following up on "Tell me about the Eiffel Tower in Paris". I see a 64×48 PNG image.'
    )
    # The image's base64 is replaced by its size in the dump's request.
    sent = json.dumps(dump["requests"][0]["body"])
    assert f"<{picture.stat().st_size} bytes base64>" in sent


@pytest.mark.parametrize(
    "args",
    [
        ["--route", "chat", "--tool-result", "get_weather={not json"],
        ["--route", "chat", "--tool-result", "no-equals-sign"],
        ["--route", "images", "--prompt", "a", "--prompt", "b"],
        ["--route", "chat", "--conversation", "/nonexistent/conversation.json"],
    ],
)
def test_bad_conversation_options_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "playground", *args, "--exit-when-done"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path),
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
