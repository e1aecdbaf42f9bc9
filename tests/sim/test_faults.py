"""Every fault in FAULTS does what docs/simulator.md says, on a real socket."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx
import pytest

from playground.sim.fault_names import FAULTS

from .conftest import INSTANT
from .helpers import BODIES, CHAT, payloads, stream

HTTP_FAULTS = [f for f in FAULTS if f.startswith("http-")]
# anthropic-sdk-python types/shared/error_type.py, plus request_too_large (HTTP 413).
ANTHROPIC_TYPES = {
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "rate_limit_error",
    "timeout_error",
    "overloaded_error",
    "api_error",
    "billing_error",
    "request_too_large",
}


def _post(
    base_url: str, path: str, fault: str, body: dict[str, Any] | None = None
) -> httpx.Response:
    return httpx.post(
        base_url + path,
        json=body or BODIES[path],
        headers=INSTANT | {"X-Sim-Fault": fault},
        timeout=30,
    )


@pytest.mark.parametrize("fault", HTTP_FAULTS)
def test_http_faults_answer_before_the_stream(base_url: str, fault: str) -> None:
    status = int(fault.removeprefix("http-"))
    r = _post(base_url, "/chat/completions", fault)
    assert r.status_code == status
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["code"] == status and err["message"] and err["metadata"]["error_type"]
    assert ("retry-after" in r.headers) == (status in (429, 503))
    anthropic = _post(base_url, "/messages", fault).json()
    assert anthropic["type"] == "error" and anthropic["error"]["type"] in ANTHROPIC_TYPES


def test_no_key_non_json_empty(base_url: str) -> None:
    r = _post(base_url, "/responses", "no-key")
    assert (r.status_code, r.json()) == (401, {"message": "No API key provided"})
    r = _post(base_url, "/responses", "non-json-error")
    assert r.status_code == 502 and r.headers["content-type"].startswith("text/html")
    r = _post(base_url, "/images/generations", "empty-error")
    assert r.status_code == 500 and r.content == b""


def test_json_instead_of_stream(base_url: str) -> None:
    r = _post(base_url, "/chat/completions", "json-instead-of-stream")
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["object"] == "chat.completion"


def test_midstream_error_per_route_matches_the_seeds(base_url: str) -> None:
    def tail(path: str) -> list[Any]:
        _, chunks = stream(base_url, path, **{"X-Sim-Fault": "midstream-error"})
        return payloads(b"".join(c for _, c in chunks))

    chat = tail("/chat/completions")
    assert chat[-1] == "[DONE]"
    assert chat[-2]["error"]["message"] and chat[-2]["choices"][0]["finish_reason"] == "error"
    assert any(p.get("choices", [{}])[0].get("delta", {}).get("content") for p in chat[:-2])
    resp = tail("/responses")
    assert [p["type"] for p in resp[-2:]] == ["error", "response.failed"]
    assert resp[-1]["response"]["status"] == "failed"
    msgs = tail("/messages")
    assert [p["type"] for p in msgs[-2:]] == ["error", "message_stop"]
    assert msgs[-2]["error"]["type"] == "api_error"
    imgs = tail("/images/generations")
    assert imgs[0]["type"] == "image_generation.partial_image"
    assert imgs[-2]["type"] == "error" and imgs[-1] == "[DONE]"
    speech = tail("/audio/speech")
    assert speech[0]["type"] == "speech.audio.delta" and speech[-2]["type"] == "error"


def test_incomplete_per_route(base_url: str) -> None:
    def last(path: str) -> list[Any]:
        _, chunks = stream(base_url, path, **{"X-Sim-Fault": "incomplete"})
        return payloads(b"".join(c for _, c in chunks))

    chat = last("/chat/completions")
    assert chat[-2]["choices"][0]["finish_reason"] == "length"
    resp = last("/responses")
    assert resp[-1]["type"] == "response.incomplete"
    assert resp[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    msgs = last("/messages")
    assert msgs[-2]["delta"]["stop_reason"] == "max_tokens"


def test_drop_closes_the_connection_mid_body(base_url: str) -> None:
    got = b""
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream(
            "POST",
            base_url + "/chat/completions",
            json=CHAT,
            headers=INSTANT | {"X-Sim-Fault": "drop"},
        ) as r,
    ):
        for chunk in r.iter_raw():
            got += chunk
    assert b'"content":"' in got and b"[DONE]" not in got
    assert httpx.post(base_url + "/chat/completions", json=CHAT, headers=INSTANT).is_success


def test_stall_pauses_then_continues(base_url: str) -> None:
    _, chunks = stream(
        base_url, "/chat/completions", **{"X-Sim-Fault": "stall", "X-Sim-Stall-Seconds": "0.6"}
    )
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(chunks)]
    assert max(gaps) >= 0.55
    assert chunks[-1][1] == b"data: [DONE]\n\n"


def test_bad_json_one_malformed_line(base_url: str) -> None:
    _, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Fault": "bad-json"})
    datas = payloads(b"".join(c for _, c in chunks))
    broken = [d for d in datas if isinstance(d, str) and d != "[DONE]"]
    assert len(broken) == 1 and broken[0].startswith("{")
    assert datas[-1] == "[DONE]"


def test_unknown_events_are_relayed(base_url: str) -> None:
    for path in ("/chat/completions", "/responses", "/messages", "/images/generations"):
        _, chunks = stream(base_url, path, **{"X-Sim-Fault": "unknown-events"})
        raw = b"".join(c for _, c in chunks)
        assert raw.count(b"sim_annotation") >= 2, path
    _, chunks = stream(base_url, "/responses", **{"X-Sim-Fault": "unknown-events"})
    datas = payloads(b"".join(c for _, c in chunks))
    assert [d["sequence_number"] for d in datas] == list(range(len(datas)))


def test_huge_line(base_url: str) -> None:
    _, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Fault": "huge-line"})
    raw = b"".join(c for _, c in chunks)
    assert max(len(line) for line in raw.split(b"\n")) > 10 * 1024 * 1024
    assert raw.endswith(b"data: [DONE]\n\n")


def test_garbage_bytes(base_url: str) -> None:
    _, chunks = stream(base_url, "/messages", **{"X-Sim-Fault": "garbage"})
    raw = b"".join(c for _, c in chunks)
    with pytest.raises(UnicodeDecodeError):
        raw.decode()
    assert raw.endswith(b'data: {"type":"message_stop"}\n\n')


def test_out_of_order(base_url: str) -> None:
    _, chunks = stream(base_url, "/messages", **{"X-Sim-Fault": "out-of-order"})
    types = [p["type"] for p in payloads(b"".join(c for _, c in chunks))]
    assert types.index("content_block_delta") < types.index("content_block_start")


def test_after_terminator(base_url: str) -> None:
    _, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Fault": "after-terminator"})
    datas = payloads(b"".join(c for _, c in chunks))
    assert "[DONE]" in datas and datas[-1] != "[DONE]"
    assert json.dumps(datas[-1])


def test_unknown_fault_name_means_none(base_url: str) -> None:
    _, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Fault": "bogus"})
    assert chunks[-1][1] == b"data: [DONE]\n\n"
