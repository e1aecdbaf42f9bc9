"""What every export target shares: reading the run's request, and what a snippet may carry.

The key is always an environment variable reference, never its value: the request read from a
capture carries redacted headers only, and credential headers are rebuilt from the provider's
env var, never copied. The base URL is an environment variable too (BASE_URL_VAR), defaulting to
the run's, so one snippet serves the built-in simulator (whose port changes at every start), a
local gateway and the real one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playground.protocol import safe_json
from playground.protocol.requests import route_spec
from playground.transport.providers import provider_for_url

__all__ = [
    "BASE_URL_VAR",
    "ExportError",
    "Run",
    "comment_text",
    "file_extension",
    "json_text",
    "read_run",
]

BASE_URL_VAR = "PLAYGROUND_BASE_URL"

# Headers the SDKs and curl set themselves, or that carry the key: never copied from the run.
# Well-known credential header names an export leaves out (it sends the key from an environment
# variable instead); any other header the redaction rule catches travels as "[redacted]".
_CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "x-api-key",
        "api-key",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-goog-api-key",
    }
)
_SKIP_HEADERS = _CREDENTIAL_HEADERS | {
    "content-type",
    "content-length",
    "accept",
    "accept-encoding",
    "user-agent",
    "host",
    "connection",
    "anthropic-version",
}
# The simulator's own controls (X-Sim-Pace, X-Sim-Fault...): meaningless to any other server.
_SIM_PREFIX = "x-sim-"

_FILE_VIEW = re.compile(r"^@(?P<name>.+?)(?: \(\d+ bytes\))?$", re.DOTALL)
# RFC 9110: a field name is a token; a value is visible ASCII, spaces and tabs. A header
# outside that (a newline, NUL, non-ASCII) could not have been sent as it reads, and a newline
# in one would start a header of its own in curl's -H: such headers are left out.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")
# What an uploaded file's name may hold where curl reads the file (-F file=@NAME): a plain name
# in the working folder, so a capture cannot make the command upload ~/.ssh/id_rsa.
_UPLOAD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._ -]{0,99}")


def _escape_unprintable(char: str) -> str:
    code = ord(char)
    if code > 0xFFFF:  # a UTF-16 surrogate pair: valid in JSON and in JavaScript strings
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


# json.dumps escapes C0 controls inside strings itself; the raw newlines left are its layout.
_UNPRINTABLE = re.compile(r"[^\n\x20-\x7e\xa0-\U0010ffff]|[\u2028\u2029\ud800-\udfff]")


def json_text(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON text that any file, terminal or JavaScript parser takes as written:
    non-ASCII that prints stays readable, everything else (controls, line and paragraph
    separators, which end a JavaScript comment or line, lone surrogates, which no UTF-8 file
    holds) is a \\u escape. Only string contents can hold such characters, so the escapes always
    land inside a string literal."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _UNPRINTABLE.sub(lambda m: _escape_unprintable(m.group()), text)


def comment_text(text: str) -> str:
    """``text`` fit for one line of a code comment in any target: every character that does not
    print (a newline, NUL, U+2028, which ends a JavaScript comment) is written as its escape."""
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


_EXTENSION = re.compile(r"[A-Za-z0-9]{1,16}")


def file_extension(value: Any, default: str) -> str:
    """The extension of a file a snippet saves (an image's output_format, speech's
    response_format): the run's when it is a plain word, else ``default``, so no value from a
    capture makes a snippet write outside its folder."""
    return value if isinstance(value, str) and _EXTENSION.fullmatch(value) else default


class ExportError(ValueError):
    """The request cannot be exported (no URL, an unknown route...)."""


@dataclass(frozen=True)
class Run:
    """A run's request, read once for every target."""

    route: str
    url: str
    method: str
    base_url: str  # the run's base URL, as the provider bar shows it (ends in /v1 mostly)
    path: str  # what follows base_url in url: the route's path
    env_var: str  # where the key comes from
    auth: str | None  # "bearer", "x-api-key", or None when the run sent no key
    headers: dict[str, str]  # the headers worth copying (no key, no X-Sim-*)
    body: Any  # the JSON body, a str, or the form fields (typed) for multipart routes
    filename: str  # the uploaded file's name (multipart routes)
    simulator: bool  # the run went to the built-in simulator

    @property
    def fields(self) -> dict[str, Any]:
        """The body as a dict (empty when it is not a JSON object)."""
        return dict(self.body) if isinstance(self.body, dict) else {}

    @property
    def stream(self) -> bool:
        return bool(self.fields.get("stream"))

    @property
    def upload_name(self) -> str:
        """The uploaded file's name where a command reads the file from the working folder:
        the run's own when it is a plain name, else the default one."""
        return self.filename if _UPLOAD_NAME.fullmatch(self.filename) else "audio.wav"

    def notes(self) -> list[str]:
        """The header comment's lines after "how to run": where the key and the URL come from.
        Parts from the capture are written by ``comment_text``, so none ends the comment."""
        key = f"The API key is read from ${self.env_var}"
        if self.auth is None:
            key += " (this run sent none, so any value or none works)"
        lines = [
            key + ".",
            f"${BASE_URL_VAR} overrides the base URL (default: {comment_text(self.base_url)}).",
        ]
        if self.simulator:
            lines.append(
                "This run went to the playground's built-in simulator, whose port changes at "
                f"every start: run `playground sim` and set {BASE_URL_VAR} to the URL it prints."
            )
        return lines


def _headers(request: Mapping[str, Any]) -> dict[str, str]:
    raw = request.get("headers") or {}
    pairs: list[tuple[Any, Any]] = []
    if isinstance(raw, list):  # [[name, value], ...]
        pairs = [tuple(pair) for pair in raw if isinstance(pair, list | tuple) and len(pair) == 2]
    elif isinstance(raw, dict):
        pairs = list(raw.items())
    return {
        str(n): str(v)
        for n, v in pairs
        if _HEADER_NAME.fullmatch(str(n)) and _HEADER_VALUE.fullmatch(str(v))
    }


def _auth_style(headers: Mapping[str, str]) -> str | None:
    names = {n.lower() for n in headers}
    if "x-api-key" in names:
        return "x-api-key"
    if "authorization" in names:
        return "bearer"
    return None


def _body(request: Mapping[str, Any]) -> Any:
    body = request.get("body")
    if isinstance(body, str | bytes):
        return safe_json.loads_or(body, body)
    return body


def _form(body: Any) -> tuple[dict[str, Any], str]:
    """Multipart fields (typed back from their form strings) and the uploaded file's name."""
    fields = dict(body) if isinstance(body, dict) else {}
    filename = "audio.wav"
    file_value = fields.pop("file", None)
    if isinstance(file_value, str):
        match = _FILE_VIEW.match(file_value)
        if match:
            filename = match.group("name")
    typed: dict[str, Any] = {}
    for key, value in fields.items():
        if value in ("true", "false"):
            typed[key] = value == "true"
        elif key == "temperature" and isinstance(value, str):
            try:
                typed[key] = float(value)
            except ValueError:
                typed[key] = value
        else:
            typed[key] = value
    return typed, filename


def _split_url(url: str, route: str) -> str:
    """The base URL: the request URL without the route's path."""
    for path in (route_spec(route).path, "/images"):
        if url.endswith(path):
            return url[: -len(path)]
    return url.rsplit("/", 1)[0]


def read_run(request: Mapping[str, Any], route: str) -> Run:
    """The parts of a captured request that every target needs; ExportError when it has none."""
    if not request.get("url"):
        raise ExportError("the run has no request URL to export")
    try:
        spec = route_spec(route)
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    url = str(request["url"])
    method = str(request.get("method") or "POST").upper()
    if not _HEADER_NAME.fullmatch(method):  # RFC 9110: a method is a token, as a field name is
        raise ExportError(f"the run's method {method[:40]!r} is not an HTTP method")
    headers = _headers(request)
    base = _split_url(url, route)
    body = _body(request)
    filename = "audio.wav"
    if spec.multipart:
        body, filename = _form(body)
    return Run(
        route=route,
        url=url,
        method=method,
        base_url=base,
        path=url[len(base) :],
        env_var=provider_for_url(url).env_var or "PLAYGROUND_API_KEY",
        auth=_auth_style(headers),
        headers={
            n: v
            for n, v in headers.items()
            if n.lower() not in _SKIP_HEADERS and not n.lower().startswith(_SIM_PREFIX)
        },
        body=body,
        filename=filename,
        simulator=any(n.lower().startswith(_SIM_PREFIX) for n in headers),
    )
