"""The simulator's tool arguments come from the prompt where it names them, as a model's would."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from .conftest import INSTANT

GET_TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "The current time in a time zone.",
        "parameters": {
            "type": "object",
            "properties": {"tz": {"type": "string"}},
            "required": ["tz"],
        },
    },
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["location", "unit", "days"],
        },
    },
}


def _arguments(base_url: str, prompt: str, tool: dict[str, Any]) -> dict[str, Any]:
    body = {
        "model": "sim-chat",
        "messages": [{"role": "user", "content": prompt}],
        "tools": [tool],
        "tool_choice": "required",
    }
    response = httpx.post(base_url + "/chat/completions", json=body, headers=INSTANT, timeout=30)
    assert response.status_code == 200, response.text
    call = response.json()["choices"][0]["message"]["tool_calls"][0]
    arguments: dict[str, Any] = json.loads(call["function"]["arguments"])
    return arguments


@pytest.mark.parametrize(
    ("prompt", "zone"),
    [
        ("What time is it in Tokyo?", "Asia/Tokyo"),
        ("What is the time in Oslo right now?", "Europe/Oslo"),
        ("Tell me the time, tz: America/Lima", "America/Lima"),
    ],
)
def test_a_time_zone_argument_is_the_zone_the_prompt_names(
    base_url: str, prompt: str, zone: str
) -> None:
    assert _arguments(base_url, prompt, GET_TIME) == {"tz": zone}


def test_a_location_an_enum_and_a_written_number_come_from_the_prompt(base_url: str) -> None:
    args = _arguments(base_url, "The weather in Nairobi in fahrenheit, for days=4 please", WEATHER)
    assert args == {"location": "Nairobi", "unit": "fahrenheit", "days": 4}
