"""make_spec: the one request builder, and the plain-http key question every sender gets."""

from __future__ import annotations

import pytest

from playground.transport.providers import provider_by_id
from playground.transport.spec import RequestSpec, make_spec

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def _asker(answer: bool, asked: list[str]) -> object:
    def ask(spec: RequestSpec) -> bool:
        asked.append(spec.url)
        return answer

    return ask


def test_a_key_over_plain_http_to_another_machine_is_asked_about_first() -> None:
    asked: list[str] = []
    custom = provider_by_id("custom")
    declined = make_spec(
        custom,
        "chat",
        BODY,
        "sk-x1234",
        base_url="http://10.1.2.3:8000/v1",
        ask_key_over_http=_asker(False, asked),  # type: ignore[arg-type]
    )
    assert declined is None and asked == ["http://10.1.2.3:8000/v1/chat/completions"]
    agreed = make_spec(
        custom,
        "chat",
        BODY,
        "sk-x1234",
        base_url="http://10.1.2.3:8000/v1",
        ask_key_over_http=_asker(True, asked),  # type: ignore[arg-type]
    )
    assert agreed is not None and agreed.allow_insecure_key


@pytest.mark.parametrize(
    ("base", "key"),
    [
        ("https://api.example.com/v1", "sk-x1234"),
        ("http://127.0.0.1:9/v1", "sk-x1234"),
        ("http://10.1.2.3:8000/v1", None),
    ],
)
def test_no_question_over_tls_to_loopback_or_without_a_key(base: str, key: str | None) -> None:
    asked: list[str] = []
    spec = make_spec(
        provider_by_id("custom"),
        "chat",
        BODY,
        key,
        base_url=base,
        ask_key_over_http=_asker(False, asked),  # type: ignore[arg-type]
    )
    assert spec is not None and not spec.allow_insecure_key and asked == []


def test_without_a_question_the_spec_is_left_for_the_transport_to_refuse() -> None:
    spec = make_spec(
        provider_by_id("custom"), "chat", BODY, "sk-x1234", base_url="http://10.1.2.3:8000/v1"
    )
    assert spec is not None and not spec.allow_insecure_key


def test_simulator_headers_go_to_the_simulator_only_and_the_model_fills_an_empty_body() -> None:
    sim = make_spec(
        provider_by_id("simulator"),
        "chat",
        {"stream": True},
        None,
        base_url="http://127.0.0.1:9",
        sim_headers={"X-Sim-Pace": "fast"},
        model="sim-1",
    )
    assert sim is not None and sim.headers["X-Sim-Pace"] == "fast"
    assert sim.json_body == {"stream": True, "model": "sim-1"}
    other = make_spec(
        provider_by_id("custom"),
        "chat",
        BODY,
        None,
        base_url="https://api.example.com/v1",
        sim_headers={"X-Sim-Pace": "fast"},
    )
    assert other is not None and "X-Sim-Pace" not in other.headers
    gateway = make_spec(
        provider_by_id("custom"),
        "chat",
        BODY,
        None,
        base_url="https://api.example.com/v1",
        extra_headers={"X-Sim-Pace": "instant"},
    )
    assert gateway is not None and gateway.headers["X-Sim-Pace"] == "instant"


def test_a_route_the_provider_does_not_serve_or_a_missing_base_url_is_one_sentence() -> None:
    with pytest.raises(ValueError, match="does not serve"):
        make_spec(provider_by_id("anthropic"), "chat", BODY, None)
    with pytest.raises(ValueError, match="needs a base URL"):
        make_spec(provider_by_id("custom"), "chat", BODY, None)
