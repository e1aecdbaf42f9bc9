"""Pure helpers: pace parsing, prose, schema values, the CLI's loopback check."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from playground.sim import cli, prose
from playground.sim.pace import MAX_LAG, Schedule, parse_pace
from playground.sim.schema_values import value_for


def test_pace_presets_and_numbers() -> None:
    assert parse_pace(None).name == "realtime"
    assert 1 / 40 <= parse_pace("realtime").token_seconds <= 1 / 20  # ~20-40 tokens/s
    assert parse_pace("instant").instant and parse_pace("INSTANT").instant
    assert parse_pace("fast").token_seconds < parse_pace("realtime").token_seconds
    assert parse_pace("12.5").token_seconds == pytest.approx(0.0125)
    assert parse_pace("250ms").token_seconds == pytest.approx(0.25)
    assert parse_pace("-4").instant
    assert parse_pace("realtime").scaled(1.0) == pytest.approx(1.0)
    assert parse_pace("fast").scaled(1.0) < 0.2 and parse_pace("instant").scaled(1.0) == 0
    assert parse_pace("nonsense").name == "realtime"


def test_tokens_join_back_and_answers_are_markdown() -> None:
    text = prose.answer("How do rainbows form after a storm?")
    assert "".join(prose.tokens(text)) == text
    assert "rainbows" in text.lower() and text.startswith("## ")
    assert 60 <= len(text.split()) <= 150
    assert prose.answer("x") == prose.answer("x") != prose.answer("y")
    long = prose.answer_tokens("hello", 5000)
    assert len(long) == 5000 and long[:3] == prose.answer_tokens("hello", 3)


@pytest.mark.parametrize(
    ("prompt", "language"),
    [
        ("Write a Python function that sums a list", "python"),
        ("Write a function that reverses a string", "python"),
        ("Show me a Rust function to parse numbers", "rust"),
        ("Write a TypeScript class for a queue", "typescript"),
        ("Write a bash script that counts files", "bash"),
        ("Write a SQL query for the newest rows", "sql"),
        ("Write the code in Go", "go"),
    ],
)
def test_a_prompt_asking_for_code_gets_a_fenced_block_in_its_language(
    prompt: str, language: str
) -> None:
    from playground.protocol.markdown import split_blocks

    text = prose.answer(prompt)
    fences = [b for b in split_blocks(text) if b.kind == "fence"]
    assert len(fences) == 1 and fences[0].info == language
    assert fences[0].text.endswith("```") and fences[0].code.strip()
    assert "".join(prose.tokens(text)) == text


def test_a_prompt_asking_for_a_table_gets_a_markdown_table() -> None:
    from playground.protocol.markdown import split_blocks

    text = prose.answer("Compare Rust and Go in a table")
    blocks = split_blocks(text)
    tables = [b for b in blocks if b.kind == "table"]
    assert len(tables) == 1 and not any(b.kind == "fence" for b in blocks)
    rows = tables[0].text.split("\n")
    assert rows[0] == "| Topic | Approach | Strength | Watch out for |"
    assert rows[1] == "| :--- | :--- | :---: | ---: |" and len(rows) == 5
    # Other prompts are answered as before: no code, no table.
    plain = split_blocks(prose.answer("How do rainbows form after a storm?"))
    assert {b.kind for b in plain} <= {"heading", "paragraph", "list"}


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 3, "maxLength": 5},
        "n": {"type": "integer", "minimum": 10, "maximum": 12},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 3},
        "when": {"type": "string", "format": "date"},
        "choice": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 5, "maximum": 5}]},
        "nested": {"type": "object", "properties": {"k": {"const": 7}}},
        "opt": {"type": ["string", "null"]},
    },
    "required": ["name", "n"],
}


def test_schema_values_validate() -> None:
    for seed in range(20):
        v = value_for(SCHEMA, random.Random(seed))
        json.dumps(v)
        assert 3 <= len(v["name"]) <= 5 and 10 <= v["n"] <= 12 and isinstance(v["n"], int)
        assert 0 < v["ratio"] <= 1 and isinstance(v["flag"], bool)
        assert len(v["tags"]) >= 3 and set(v["tags"]) <= {"a", "b"}
        assert len(v["when"]) == 10 and v["choice"] == 5 and v["nested"] == {"k": 7}
        assert isinstance(v["opt"], str)


def test_schema_values_survive_odd_schemas() -> None:
    rng = random.Random(0)
    assert value_for({}, rng) is not None
    assert value_for({"type": "object"}, rng) == {}
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(30):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    json.dumps(value_for(deep, rng))


def test_loopback_check() -> None:
    assert cli.is_loopback("127.0.0.1") and cli.is_loopback("::1") and cli.is_loopback("localhost")
    assert not cli.is_loopback("0.0.0.0") and not cli.is_loopback("192.168.1.4")


def test_cli_warns_for_non_loopback_and_prints_url(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import threading

    from playground.sim import server

    class Fake:
        def __init__(self, host: str, port: int, **defaults: str | None) -> None:
            self.base_url = f"http://{host}:{port or 1234}/v1"
            self.stopped = False

        def start(self) -> Fake:
            return self

        def stop(self) -> None:
            self.stopped = True

    def interrupt(self: threading.Event, timeout: float | None = None) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(server, "SimServer", Fake)
    monkeypatch.setattr(threading.Event, "wait", interrupt)
    assert cli.main(["--host", "0.0.0.0", "--port", "8080"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "http://0.0.0.0:8080/v1" and "warning" in err
    assert cli.main([]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "http://127.0.0.1:1234/v1" and "warning" not in err


def test_a_city_argument_takes_the_place_named_in_the_prompt() -> None:
    import json
    import random

    from playground.sim.schema_values import places_in, value_for

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
    }
    prompt = "What is the weather like in Paris today?"
    args = value_for(schema, random.Random(1), places=places_in(prompt))
    assert args["city"] == "Paris"
    assert args["unit"] in ("celsius", "fahrenheit")
    assert json.loads(json.dumps(args)) == args
    assert places_in("Is it raining? Tell me about Oslo and Lima.") == ("Oslo", "Lima")


def test_a_paced_stream_keeps_its_rate_when_sleeps_overshoot() -> None:
    # 0.5 ms a token, each sleep overshooting to 1.2 ms (the event loop's timer): frames then
    # come due while the writer sleeps, and go out with no sleep, so 2,000 tokens take 1 s.
    schedule, now, sent = Schedule(0.0), 0.0, 0
    while sent < 2000:
        wait = schedule.wait(0.0005, now)
        if wait > 0:
            now += max(wait, 0.0012)
        sent += 1
    assert now == pytest.approx(1.0, abs=0.002)


def test_a_held_up_stream_bursts_at_most_max_lag_then_keeps_the_pace() -> None:
    schedule = Schedule(0.0)
    assert schedule.wait(0.010, 0.0) == pytest.approx(0.010)
    # The reader held the writer for 2 s: only MAX_LAG's worth of frames go out at once.
    burst = 0
    while schedule.wait(0.010, 2.010) == 0:
        burst += 1
    assert burst == pytest.approx(MAX_LAG / 0.010, abs=1)
    schedule.restart(5.0)  # a stall on purpose: nothing to catch up
    assert schedule.wait(0.010, 5.0) == pytest.approx(0.010)
