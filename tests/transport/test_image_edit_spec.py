"""The image edit's request: an images body with files is multipart at ``/images/edits`` beside
the provider's generations path, its fields as form strings, files never in the JSON view."""

from __future__ import annotations

import json

from playground.protocol.requests import RequestParams, build_body, edit_fields, edit_url
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 40


def test_the_edits_url_sits_beside_generations() -> None:
    assert (
        edit_url("http://127.0.0.1:9/v1/images/generations") == "http://127.0.0.1:9/v1/images/edits"
    )
    assert edit_url("https://gw.example/openai/v1/images/generations") == (
        "https://gw.example/openai/v1/images/edits"
    )
    assert edit_url("https://gw.example/images/") == "https://gw.example/images/edits"


def test_the_fields_are_form_strings() -> None:
    body = build_body(
        "images",
        RequestParams(model="m", prompt="a barn", size="512x512", partial_images=2, n=1),
    )
    assert edit_fields(body) == {
        "model": "m",
        "prompt": "a barn",
        "n": "1",
        "size": "512x512",
        "stream": "true",
        "partial_images": "2",
    }


def test_an_images_body_with_files_is_a_multipart_edit() -> None:
    body = build_body("images", RequestParams(model="m", prompt="a barn", partial_images=1))
    files = [("image", ("image.png", PNG, "image/png"))]
    spec = make_spec(
        provider_by_id("simulator"),
        "images",
        body,
        None,
        base_url="http://127.0.0.1:9/v1",
        files=files,
    )
    assert spec is not None
    assert spec.url == "http://127.0.0.1:9/v1/images/edits"
    assert spec.json_body is None and spec.files == files
    assert spec.data == {
        "model": "m",
        "prompt": "a barn",
        "stream": "true",
        "partial_images": "1",
    }
    assert "Content-Type" not in spec.headers  # httpx writes the multipart boundary
    assert spec.headers["Accept"] == "text/event-stream"
    view = json.loads(spec.body_bytes() or b"")
    assert view["image"] == f"@image.png ({len(PNG)} bytes)"
    # Without files it stays the JSON generation.
    plain = make_spec(
        provider_by_id("simulator"), "images", body, None, base_url="http://127.0.0.1:9/v1"
    )
    assert plain is not None and plain.url.endswith("/images/generations")
    assert plain.json_body == body
