"""The proxy knows every path of the route registry (edits and music's job stream included)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from PIL import Image

from playground.cli.inspect import decode_file
from playground.protocol.capture import capture_route, read_capture
from playground.protocol.routes import ROUTES, route_for_path, route_for_url
from playground.proxy.wire import route_of
from playground.sim.server import SimServer

from .conftest import INSTANT, start_proxy


def _registry_paths() -> list[tuple[str, str, str]]:
    out = []
    for route in ROUTES:
        out.append((route.method, route.path, route.name))
        for method, pattern in route.other_paths:
            out.append((method, pattern.replace("{id}", "job_0001"), route.name))
    return out


@pytest.mark.parametrize(("method", "path", "name"), _registry_paths())
def test_the_proxy_names_the_route_of_every_registry_path(
    method: str, path: str, name: str
) -> None:
    assert route_of(method, "/v1" + path) == name
    assert route_of(method.lower(), "/v1" + path + "/") == name  # a trailing slash, any case
    assert route_for_url(method, f"https://gw.example/api/v1{path}?x=1") == name


def test_the_edits_path_is_the_images_route_and_unknown_paths_are_none() -> None:
    assert route_of("POST", "/v1/images/edits") == "images"
    assert route_for_path("POST", "/images/edits") == "images"
    assert route_of("GET", "/v1/images/edits") is None
    assert route_of("POST", "/v1/embeddings") is None
    assert route_of("GET", "/v1/music//stream") is None


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 40, 40)).save(out, "PNG")
    return out.getvalue()


def test_a_failing_edit_stream_through_the_proxy_is_read_with_the_images_grammar(
    sim: SimServer, tmp_path: Path
) -> None:
    proxy = start_proxy(sim.base_url, save=tmp_path)
    try:
        with httpx.Client(timeout=30) as client:
            response = client.post(
                proxy.base_url + "/images/edits",
                headers={
                    **INSTANT,
                    "X-Sim-Fault": "midstream-error",
                    "Authorization": "Bearer sk-x",
                },
                data={
                    "model": "sim-image",
                    "prompt": "a red square",
                    "stream": "true",
                    "partial_images": "1",
                },
                files={"image": ("in.png", _png(), "image/png")},
            )
            assert response.status_code == 200
        line = proxy.last(timeout=20)
    finally:
        proxy.server.stop()
    assert line["route"] == "images"
    assert line["events"] > 0
    assert line["status"] != "complete"
    captures = sorted(tmp_path.glob("*.capture.jsonl"))
    assert captures, "no capture written"
    capture = read_capture(captures[-1])
    assert capture.route == "images"
    assert capture_route(capture) == "images"


def test_inspect_reads_a_capture_saved_as_other_by_its_request_path(tmp_path: Path) -> None:
    body = (
        b'event: image_edit.partial_image\ndata: {"type":"image_edit.partial_image",'
        b'"b64_json":"iVBORw0KGgo=","partial_image_index":0}\n\n'
    )
    lines = [
        {
            "format": "playground-capture/1",
            "route": "other",
            "request": {
                "method": "POST",
                "url": "http://127.0.0.1:1/v1/images/edits",
                "headers": {},
                "body": None,
            },
            "started_at": "2026-12-04T00:00:00Z",
        },
        {
            "response": {
                "status": 200,
                "headers": [["content-type", "text/event-stream"]],
                "t": 0.01,
            }
        },
        {"t": 0.02, "b64": __import__("base64").b64encode(body).decode()},
        {"end": 0.03, "status": None},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    assert decode_file(data).route == "images"
