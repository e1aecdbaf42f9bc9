"""Presets on disk: the file format exactly, a round trip, the atomic write, files that are not
presets (one sentence each, never a crash), listing, deleting, a new conversation's body."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from playground.runs.presets import (
    PRESET_FORMAT,
    Preset,
    PresetError,
    delete_preset,
    file_name,
    find_preset,
    list_presets,
    load_preset,
    new_conversation_body,
    parse_preset,
    preset_dir,
    save_preset,
)

CHAT_BODY: dict[str, Any] = {
    "model": "sim-reasoner",
    "stream": True,
    "temperature": 0.3,
    "messages": [
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'},
        {"role": "assistant", "content": "Il fait 21 degrés."},
        {"role": "user", "content": "And tomorrow?"},
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
}


def _preset(**kw: Any) -> Preset:
    values: dict[str, Any] = {
        "name": "Paris weather",
        "route": "chat",
        "body": CHAT_BODY,
        "model": "sim-reasoner",
        "system": "Answer in French.",
        "canned": {"get_weather": '{"temp": 21}'},
        "auto_reply": True,
    }
    return Preset(**(values | kw))


def test_a_preset_round_trips_through_its_file(tmp_path: Path) -> None:
    path = save_preset(_preset(), tmp_path)
    assert path == tmp_path / "Paris weather.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(data) == [
        "body",
        "format",
        "model",
        "name",
        "route",
        "saved_at",
        "system",
        "thread",
        "tools",
        "variables",
    ]
    assert data["format"] == PRESET_FORMAT == "playground-preset/1"
    assert data["body"] == CHAT_BODY
    assert data["tools"] == {"canned": {"get_weather": '{"temp": 21}'}, "auto_reply": True}
    assert data["saved_at"].endswith("+00:00")
    assert data["thread"] is None  # none given: the body's turns are the thread
    loaded = load_preset(path)
    assert loaded == _preset(saved_at=data["saved_at"])
    assert find_preset("Paris weather", tmp_path) == loaded


def test_the_default_folder_is_in_the_data_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path / "data"))
    assert preset_dir() == tmp_path / "data" / "presets"
    save_preset(_preset(name="default folder"))
    assert (tmp_path / "data" / "presets" / "default folder.json").is_file()


def test_names_never_leave_the_folder(tmp_path: Path) -> None:
    assert file_name("../../etc/passwd") == "_.._etc_passwd.json"
    assert file_name("  a   b  ") == "a b.json"
    path = save_preset(_preset(name="a/b: c"), tmp_path)
    assert path.parent == tmp_path and path.name == "a_b_ c.json"
    assert load_preset(path).name == "a/b: c"  # the name as typed, kept in the file
    assert find_preset("a/b: c", tmp_path).name == "a/b: c"
    for bad in ("", "   ", "x" * 81):
        with pytest.raises(PresetError, match="name"):
            save_preset(_preset(name=bad), tmp_path)


def test_a_failed_write_leaves_the_old_preset_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save_preset(_preset(), tmp_path)
    before = path.read_bytes()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(PresetError, match=r"^The preset 'Paris weather' was not saved \(No space"):
        save_preset(_preset(body=CHAT_BODY | {"temperature": 1.5}), tmp_path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Paris weather.json"]


def test_the_write_is_a_rename_over_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaced: list[tuple[str, str]] = []
    real = os.replace

    def spy(src: Any, dst: Any) -> None:
        replaced.append((Path(src).name, Path(dst).name))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    save_preset(_preset(), tmp_path)
    assert len(replaced) == 1
    tmp, final = replaced[0]
    assert tmp.startswith(".preset-") and tmp.endswith(".tmp") and final == "Paris weather.json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe not text", "The file broken.json cannot be read (UnicodeDecodeError)."),
        (b'{"format": "playground-preset/1", ', "The file broken.json is not valid JSON (line 1)."),
        (b"[1, 2]", "The file broken.json is not a playground preset (playground-preset/1)."),
        (
            b'{"format": "playground-capture/1"}',
            "The file broken.json is not a playground preset (playground-preset/1).",
        ),
        (
            b'{"format": "playground-preset/1", "name": "x", "route": "images", "body": {}}',
            "The file broken.json is for the route 'images'; presets are for chat, responses, "
            "messages.",
        ),
        (
            b'{"format": "playground-preset/1", "name": "", "route": "chat", "body": {}}',
            "The file broken.json has no name.",
        ),
        (
            b'{"format": "playground-preset/1", "name": "x", "route": "chat", "body": [1]}',
            "The file broken.json has no request body (a JSON object).",
        ),
        (
            b'{"format": "playground-preset/1", "name": "x", "route": "chat", "body": {}, '
            b'"tools": {"canned": {"f": 1}}}',
            "The file broken.json: its canned results are not tool names and strings.",
        ),
        (
            b'{"format": "playground-preset/1", "name": "x", "route": "chat", "body": {}, '
            b'"model": 3}',
            "The file broken.json: its 'model' is not a string.",
        ),
    ],
)
def test_a_file_that_is_not_a_preset_says_so_in_one_sentence(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    set_aside = message[:-1] + "; it was set aside as broken.json.corrupt."
    with pytest.raises(PresetError) as caught:
        load_preset(path)
    assert str(caught.value) == set_aside
    assert (tmp_path / "broken.json.corrupt").read_bytes() == content and not path.exists()
    # Listed with its reason, beside the good ones, never raised; set aside (numbered) too.
    path.write_bytes(content)
    save_preset(_preset(name="good"), tmp_path)
    listed = list_presets(tmp_path)
    assert [(i.name, i.route, i.error) for i in listed] == [
        ("broken", "", set_aside.replace("broken.json.corrupt", "broken.json.1.corrupt")),
        ("good", "chat", ""),
    ]
    assert [i.name for i in list_presets(tmp_path)] == ["good"]


def test_a_missing_file_or_folder(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match=r"^There is no preset file nope.json.$"):
        load_preset(tmp_path / "nope.json")
    with pytest.raises(PresetError, match=r"^There is no preset named 'nope'.$"):
        find_preset("nope", tmp_path)
    assert list_presets(tmp_path / "no-such-folder") == []


def test_listing_and_deleting(tmp_path: Path) -> None:
    save_preset(_preset(name="beta", route="chat"), tmp_path)
    responses = {"model": "m", "stream": True, "input": [], "instructions": "s"}
    save_preset(_preset(name="Alpha", route="responses", body=responses, model="m"), tmp_path)
    (tmp_path / "notes.txt").write_text("not a preset, not listed")
    assert [(i.name, i.route, i.model) for i in list_presets(tmp_path)] == [
        ("Alpha", "responses", "m"),
        ("beta", "chat", "sim-reasoner"),
    ]
    assert delete_preset("beta", tmp_path) is True
    assert delete_preset("beta", tmp_path) is False
    assert [i.name for i in list_presets(tmp_path)] == ["Alpha"]


def test_a_new_conversation_keeps_the_system_tools_and_parameters_not_the_thread() -> None:
    assert new_conversation_body(_preset()) == {
        "model": "sim-reasoner",
        "stream": True,
        "temperature": 0.3,
        "tools": CHAT_BODY["tools"],
        "messages": [{"role": "system", "content": "Answer in French."}],
    }
    messages = {
        "model": "claude",
        "max_tokens": 2048,
        "stream": True,
        "system": "Be brief.",
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
    }
    assert new_conversation_body(_preset(route="messages", body=messages)) == {
        "model": "claude",
        "max_tokens": 2048,
        "stream": True,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "system": "Be brief.",
        "messages": [],
    }


def test_the_thread_keeps_what_a_chat_body_leaves_out(tmp_path: Path) -> None:
    from playground.protocol.conversation.model import Conversation, Text, Thinking, Turn
    from playground.runs.presets import thread_keys, thread_of

    turns = (
        Turn.of("user", "Hi"),
        Turn("assistant", (Thinking("Greet back."), Text("Hello!"))),
    )
    kept = thread_keys("chat", Conversation(turns, "ignored: the body has the system"))
    assert kept == {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!", "reasoning": "Greet back."},
        ]
    }
    path = save_preset(_preset(thread=kept), tmp_path)
    loaded = load_preset(path)
    assert loaded.thread == kept
    thread = thread_of(loaded)
    assert thread is not None and thread.turns == turns
    assert thread_of(_preset()) is None  # saved without one: the body has the thread


def test_a_thread_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    data = _preset().to_json() | {"thread": ["not", "an", "object"]}
    path.write_text(json.dumps(data))
    with pytest.raises(PresetError) as caught:
        load_preset(path)
    assert str(caught.value) == (
        "The file t.json: its 'thread' is not an object; it was set aside as t.json.corrupt."
    )


@pytest.mark.parametrize(
    "content",
    [b"[" * 100_000, b'{"format": "playground-preset/1", "body": ' + b'{"a":' * 5000],
    ids=["deep-array", "deep-body"],
)
def test_a_deeply_nested_preset_is_set_aside_and_the_folder_keeps_working(
    tmp_path: Path, content: bytes
) -> None:
    save_preset(_preset(name="good"), tmp_path)
    (tmp_path / "deep.json").write_bytes(content)
    listed = list_presets(tmp_path)
    assert [(i.name, i.error) for i in listed] == [
        (
            "deep",
            "The file deep.json is nested deeper than 256 levels; "
            "it was set aside as deep.json.corrupt.",
        ),
        ("good", ""),
    ]
    assert (tmp_path / "deep.json.corrupt").read_bytes() == content
    (tmp_path / "deep.json").write_bytes(content)
    with pytest.raises(PresetError, match=r"nested deeper than 256 levels; it was set aside"):
        find_preset("deep", tmp_path)
    assert find_preset("good", tmp_path).name == "good"
    with pytest.raises(PresetError, match=r"^There is no preset named 'deep'.$"):
        find_preset("deep", tmp_path)


def test_a_folder_in_a_preset_file_place_is_set_aside_and_the_preset_saved(
    tmp_path: Path,
) -> None:
    (tmp_path / "good.json").mkdir(parents=True)
    with pytest.raises(PresetError, match=r"set aside as good.json.corrupt"):
        find_preset("good", tmp_path)
    (tmp_path / "good.json").mkdir()
    path = save_preset(_preset(name="good"), tmp_path)
    assert path.is_file() and find_preset("good", tmp_path).name == "good"
    assert (tmp_path / "good.json.1.corrupt").is_dir()


def test_a_preset_keeps_the_values_of_its_variables(tmp_path: Path) -> None:
    path = save_preset(_preset(variables={"topic": "owls"}), tmp_path)
    assert load_preset(path).variables == {"topic": "owls"}
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["variables"]  # a preset saved before variables were kept
    assert parse_preset(data).variables == {}
    with pytest.raises(PresetError, match="variables"):
        parse_preset(data | {"variables": {"topic": 3}})
