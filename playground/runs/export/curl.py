"""A run's request as a curl command line: -N, the key and the base URL from the environment."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from playground.runs.export.common import BASE_URL_VAR, ExportError, json_text, read_run

__all__ = ["to_curl"]


def _word(text: str) -> str:
    """``text`` as one shell word: the one way anything from a capture enters the command.

    Single quotes give every character but ``'`` its literal meaning (no ``$``, backtick, ``!``
    or glob), and ``shlex.quote`` writes a ``'`` as ``'"'"'``. No shell word can hold NUL (a
    command's arguments are C strings): rather than cut the value there, the export is refused."""
    if "\x00" in text:
        raise ExportError(
            "a form field holds a NUL character, which no curl argument can carry; "
            "export the run as Python or Node instead"
        )
    return shlex.quote(text)


# Inside "${VAR:-default}", where the base URL must stay for the variable to override it, a
# shell still gives \ " ' $ ` and } a meaning, and an interactive one expands ! from its
# history (escaped by nothing). So the URL keeps only the characters RFC 3986 gives a URL that
# mean nothing there, and percent-encodes every other one, as an HTTP client would.
_URL_KEEP = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@&+,;=%*()]")


def _url_part(text: str) -> str:
    return _URL_KEEP.sub(
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogatepass")), text
    )


def to_curl(request: Mapping[str, Any], route: str) -> str:
    """A curl command line; -N so events print as they arrive."""
    run = read_run(request, route)
    env = run.env_var
    url = f'"${{{BASE_URL_VAR}:-{_url_part(run.base_url)}}}{_url_part(run.path)}"'
    parts = [f"curl -N -X {_word(run.method)} {url}"]
    if run.auth == "x-api-key":
        parts.append(f'-H "x-api-key: ${env}"')
        parts.append("-H 'anthropic-version: 2023-06-01'")
    elif run.auth == "bearer":
        parts.append(f'-H "Authorization: Bearer ${env}"')
    for name, value in run.headers.items():
        parts.append(f"-H {_word(f'{name}: {value}')}")
    if run.route == "transcription":
        # -F reads a value that starts with @ or < from a file: only the upload's own field
        # may, and its name is a plain name in the working folder. The rest are --form-string.
        parts.append(f"-F {_word('file=@' + run.upload_name)}")
        for key, value in run.fields.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            parts.append(f"--form-string {_word(f'{key}={text}')}")
    elif run.body is not None:
        parts.append("-H 'Content-Type: application/json'")
        body = run.body
        text = body if isinstance(body, str) else json_text(body)
        if len(text.encode("utf-8", "surrogatepass")) < _ARGUMENT_MAX:
            parts.append(f"--data-raw {_word(text)}")
        else:
            return " \\\n  ".join([*parts, "--data-binary @-"]) + _here_document(text)
    return " \\\n  ".join(parts) + "\n"


# Linux refuses one argument over 128 KiB (MAX_ARG_STRLEN): a bigger body goes on stdin.
_ARGUMENT_MAX = 100_000


def _here_document(text: str) -> str:
    """`` <<'END'`` and ``text`` as its lines: a quoted delimiter makes the shell expand nothing
    in it, and the delimiter is one no line of ``text`` equals."""
    lines = set(text.split("\n"))
    end = "PLAYGROUND_BODY"
    while end in lines:
        end += "_"
    return f" <<'{end}'\n{text}\n{end}\n"
