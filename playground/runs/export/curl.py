"""A run's request as a curl command line: -N, the key and the base URL from the environment."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from playground.runs.export.common import BASE_URL_VAR, read_run

__all__ = ["to_curl"]


def _double_quoted(text: str) -> str:
    """``text`` safe inside a shell "..." (where ${VAR:-default} still expands)."""
    for char in ("\\", '"', "$", "`"):
        text = text.replace(char, "\\" + char)
    return text


def to_curl(request: Mapping[str, Any], route: str) -> str:
    """A curl command line; -N so events print as they arrive."""
    run = read_run(request, route)
    env = run.env_var
    url = f'"${{{BASE_URL_VAR}:-{_double_quoted(run.base_url)}}}{_double_quoted(run.path)}"'
    parts = [f"curl -N -X {run.method} {url}"]
    if run.auth == "x-api-key":
        parts.append(f'-H "x-api-key: ${env}"')
        parts.append("-H 'anthropic-version: 2023-06-01'")
    elif run.auth == "bearer":
        parts.append(f'-H "Authorization: Bearer ${env}"')
    for name, value in run.headers.items():
        parts.append(f"-H {shlex.quote(f'{name}: {value}')}")
    if run.route == "transcription":
        parts.append(f"-F {shlex.quote('file=@' + run.filename)}")
        for key, value in run.fields.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"-F {shlex.quote(f'{key}={text}')}")
    elif run.body is not None:
        parts.append("-H 'Content-Type: application/json'")
        body = run.body
        text = body if isinstance(body, str) else json.dumps(body, indent=2, ensure_ascii=False)
        parts.append(f"-d {shlex.quote(text)}")
    return " \\\n  ".join(parts) + "\n"
