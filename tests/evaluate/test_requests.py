"""Each cell's request: variables filled everywhere, built as the panels build theirs."""

from __future__ import annotations

from playground.evaluate.requests import cell_body, cell_spec
from playground.evaluate.suite import parse_suite
from playground.protocol.requests import RequestParams, build_body

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for {{city}}",
        "parameters": {
            "type": "object",
            "properties": {"day": {"type": "string", "description": "a day in {{city}}"}},
        },
    },
}


def _suite(route: str) -> object:
    return parse_suite(
        {
            "variants": [
                {
                    "name": "A",
                    "route": route,
                    "model": "m",
                    "system": "You know {{city}}.",
                    "messages": [
                        {"role": "user", "content": "I live in {{city}}"},
                        {"role": "assistant", "content": [{"type": "text", "text": "{{city}}!"}]},
                    ],
                    "prompt": "Weather in {{city}} on {{ day }}?",
                    "tools": [TOOL],
                    "params": {"temperature": 0.2, "max_tokens": 300, "top_k": 5},
                }
            ],
            "cases": [{"id": "c", "vars": {"city": "Oslo", "day": "Monday"}, "fault": "drop"}],
        }
    )


def test_variables_are_filled_everywhere_and_the_body_is_the_panels() -> None:
    for route in ("chat", "responses", "messages"):
        suite = _suite(route)
        variant, case = suite.variants[0], suite.cases[0]  # type: ignore[attr-defined]
        body = cell_body(variant, case)
        assert "{{" not in str(body)
        expected = build_body(
            route,
            RequestParams(
                model="m",
                system="You know Oslo.",
                messages=[
                    {"role": "user", "content": "I live in Oslo"},
                    {"role": "assistant", "content": [{"type": "text", "text": "Oslo!"}]},
                    {"role": "user", "content": "Weather in Oslo on Monday?"},
                ],
                tools=[
                    {
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "description": "Weather for Oslo",
                            "parameters": {
                                "type": "object",
                                "properties": {
                                    "day": {"type": "string", "description": "a day in Oslo"}
                                },
                            },
                        },
                    }
                ],
                temperature=0.2,
                max_tokens=300,
                include_usage=True if route == "chat" else None,
                extra={"top_k": 5},
            ),
        )
        assert body == expected, route


def test_the_fault_goes_to_the_simulator_only() -> None:
    suite = _suite("chat")
    variant, case = suite.variants[0], suite.cases[0]  # type: ignore[attr-defined]
    spec = cell_spec(variant, case, base_url="http://127.0.0.1:9/v1", key=None, pace="instant")
    assert spec.headers["X-Sim-Fault"] == "drop" and spec.headers["X-Sim-Pace"] == "instant"
    from playground.transport.providers import provider_by_id

    other = cell_spec(
        variant, case, base_url=None, key="sk-test-123456", provider=provider_by_id("openai")
    )
    assert "X-Sim-Fault" not in other.headers
    assert other.url == "https://api.openai.com/v1/chat/completions"
