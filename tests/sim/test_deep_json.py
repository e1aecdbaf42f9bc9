"""The simulator reads a request nested past its depth guard as it reads any body that is not
JSON (it answers as it always does), never a 500 with a traceback."""

from __future__ import annotations

import httpx
import pytest

from playground.sim import json_depth

from .conftest import INSTANT

DEEP = "[" * 5_000 + "]" * 5_000


def test_the_guard_refuses_what_is_too_deep_as_a_value_error() -> None:
    with pytest.raises(ValueError, match="deeper than 256"):
        json_depth.loads(DEEP)
    assert json_depth.loads("[" * 256 + "]" * 256) is not None
    assert json_depth.loads('{"a": "[[[[[[", "b": 1}') == {"a": "[[[[[[", "b": 1}


@pytest.mark.parametrize("path", ["/chat/completions", "/responses", "/messages"])
def test_a_deep_request_body_is_answered(base_url: str, path: str) -> None:
    body = '{"model": "sim-chat", "messages": ' + DEEP + ', "input": ' + DEEP + "}"
    response = httpx.post(
        base_url + path,
        content=body,
        headers={"Content-Type": "application/json", **INSTANT},
        timeout=30,
    )
    assert response.status_code < 500, response.text[:300]
