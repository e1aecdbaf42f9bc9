"""The one request builder: ``make_spec(provider, route, body, ...)`` and the RequestSpec it makes.

Every sender (a route panel, a compare column, a script) builds its request here, so every one
asks the same question before a key would travel over plain http to another machine (the
transport refuses such a request unless the spec says the user agreed).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playground.protocol.redaction import is_secret_name, redact_headers, secrets_of
from playground.protocol.requests import edit_fields, edit_url, form_fields, route_spec
from playground.transport.providers import Provider, auth_headers, url_for

__all__ = [
    "AskKeyOverHttp",
    "FileField",
    "RequestSpec",
    "is_loopback_url",
    "key_travels_unencrypted",
    "make_spec",
]

# (field name, (filename, content, content type)) as httpx takes them.
FileField = tuple[str, tuple[str, bytes, str]]
# Asked before a key goes over plain http to another machine; True: the user agreed to send it.
AskKeyOverHttp = Callable[["RequestSpec"], bool]


@dataclass
class RequestSpec:
    """One request, ready to send; ``headers`` hold the key, so show ``redacted_headers()`` only."""

    provider_id: str
    method: str
    url: str
    headers: dict[str, str]
    json_body: dict[str, Any] | None = None
    files: list[FileField] | None = None  # multipart uploads (transcription, image edits)
    data: dict[str, str] | None = None  # multipart form fields
    route: str = "chat"
    stream: bool = True
    allow_insecure_key: bool = False  # the user agreed to send the key over plain http

    def redacted_headers(self) -> dict[str, str]:
        return redact_headers(self.headers)

    def body_bytes(self) -> bytes | None:
        """The JSON body as sent; for multipart, a JSON view of the fields with files as "@name"."""
        if self.json_body is not None:
            return json.dumps(self.json_body, ensure_ascii=False).encode()
        if self.files or self.data:
            view: dict[str, Any] = dict(self.data or {})
            for name, (filename, content, _ctype) in self.files or []:
                view[name] = f"@{filename} ({len(content)} bytes)"
            return json.dumps(view, ensure_ascii=False).encode()
        return None

    def secrets(self) -> list[str]:
        """The credential values in the headers (to scrub them from any text)."""
        return list(secrets_of(self.headers.items()))


def make_spec(
    provider: Provider,
    route: str,
    body: dict[str, Any],
    key: str | None,
    *,
    base_url: str | None = None,
    files: list[FileField] | None = None,
    sim_headers: Mapping[str, str] | None = None,
    extra_headers: Mapping[str, str] | None = None,
    model: str | None = None,
    ask_key_over_http: AskKeyOverHttp | None = None,
) -> RequestSpec | None:
    """A RequestSpec for ``route`` at ``provider``: URL, auth headers, JSON or multipart body.

    ``sim_headers`` (X-Sim-Fault, X-Sim-Pace) go to the built-in simulator only,
    ``extra_headers`` to any provider (a gateway in front of the simulator); ``model`` fills
    a body that names none. When the key would travel unencrypted (plain http, not loopback),
    ``ask_key_over_http`` decides: None from it means the user declined and nothing is sent.
    Without a question the spec is returned as it is, and the transport refuses to send it
    (the panel then says why).
    """
    if route not in provider.routes:
        raise ValueError(f"{provider.name} does not serve the {route_spec(route).title} route.")
    if not base_url and not provider.base_url:
        raise ValueError(f"{provider.name} needs a base URL (type it in the provider bar).")
    if model is not None and not body.get("model"):
        body = {**body, "model": model}
    extra = dict(extra_headers or {})
    if provider.builtin:
        extra.update(sim_headers or {})
    spec = _build(
        provider, route, body, key, base_url=base_url, files=files, extra_headers=extra or None
    )
    if key_travels_unencrypted(spec) and ask_key_over_http is not None:
        if not ask_key_over_http(spec):
            return None
        spec.allow_insecure_key = True
    return spec


def key_travels_unencrypted(spec: RequestSpec) -> bool:
    """Whether ``spec`` would send a credential over plain http to another machine."""
    return (
        urlsplit(spec.url).scheme.lower() == "http"
        and _has_key(spec.headers)
        and not is_loopback_url(spec.url)
    )


def _has_key(headers: Mapping[str, str]) -> bool:
    return any(is_secret_name(name) and value for name, value in headers.items())


def _build(
    provider: Provider,
    route: str,
    body: dict[str, Any],
    key: str | None,
    *,
    base_url: str | None = None,
    files: list[FileField] | None = None,
    extra_headers: Mapping[str, str] | None = None,
) -> RequestSpec:
    spec = route_spec(route)
    stream = bool(body.get("stream")) or body.get("stream_format") == "sse"
    headers = {"Accept": "text/event-stream" if stream and spec.sse else "application/json"}
    headers.update(auth_headers(provider, key))
    headers.update(extra_headers or {})
    url = url_for(provider, route, base_url)
    if route == "images" and files:  # an input image: the edit, multipart at /images/edits
        return RequestSpec(
            provider.id,
            spec.method,
            edit_url(url),
            headers,
            None,
            files,
            edit_fields(body),
            route=route,
            stream=stream,
        )
    if spec.multipart:
        return RequestSpec(
            provider.id,
            spec.method,
            url,
            headers,
            None,
            files or [],
            form_fields(body),
            route=route,
            stream=stream,
        )
    headers["Content-Type"] = "application/json"
    return RequestSpec(provider.id, spec.method, url, headers, body, route=route, stream=stream)


def is_loopback_url(url: str) -> bool:
    """True when ``url`` points at this machine (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
