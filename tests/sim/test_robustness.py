"""Odd request bodies never make the simulator fail with a 500: it is a tool for poking at."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import INSTANT

FIELDS = {
    "/chat/completions": [
        "messages",
        "tools",
        "tool_choice",
        "stream_options",
        "reasoning",
        "reasoning_effort",
        "max_tokens",
        "max_completion_tokens",
    ],
    "/responses": [
        "input",
        "tools",
        "reasoning",
        "max_output_tokens",
        "instructions",
        "tool_choice",
    ],
    "/messages": ["messages", "tools", "thinking", "max_tokens", "system", "tool_choice"],
    "/images/generations": ["prompt", "size", "partial_images", "output_format", "quality"],
    "/audio/speech": ["input", "speed", "response_format"],
    "/music": ["prompt", "duration_seconds", "model"],
}
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["role", "content", "type", "name", "function", "parameters", "text"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)


@pytest.mark.parametrize("path", list(FIELDS))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_odd_bodies_never_500(base_url: str, path: str, data: st.DataObject) -> None:
    keys = data.draw(st.lists(st.sampled_from(FIELDS[path]), max_size=3, unique=True))
    body: dict[str, Any] = {k: data.draw(JSON) for k in keys}
    if path == "/images/generations":
        body["size"] = "16x16"
    if path == "/music":
        body["duration_seconds"] = 1
    if path == "/audio/speech":
        body["input"] = str(body.get("input"))[:20]
    body["stream"] = data.draw(st.booleans())
    r = httpx.post(base_url + path, json=body, headers=INSTANT, timeout=30)
    assert r.status_code < 500, r.text[:300]
