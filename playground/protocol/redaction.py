"""The redaction rule: which header and query-parameter names carry credentials, and key values
scrubbed from any text or byte stream (split across reads too). Every file, view and proxy uses it.

Why a rule and not a list of names: gateways and clouds name their credentials freely
(``X-Auth-Token``, ``Ocp-Apim-Subscription-Key``, ``X-Amz-Security-Token``, ``?sig=``), and a
name-list misses every one it was not told of. A name is split into words at ``-``, ``_`` and
``.``; it carries a credential when a word is one of ``_SECRET_WORDS``, or when ``key`` follows a
word that makes it one (``api-key``, ``subscription-key``), or the name is just ``key``. Plural
and descriptive names stay readable (``x-ratelimit-remaining-tokens``, ``idempotency-key``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final
from urllib.parse import unquote

__all__ = [
    "REDACTED",
    "StreamScrubber",
    "is_secret_field",
    "is_secret_name",
    "redact_headers",
    "redact_pairs",
    "redact_url",
    "scrub",
    "scrub_bytes",
    "secrets_of",
]

REDACTED: Final = "[redacted]"
_REDACTED_BYTES: Final = REDACTED.encode()
# A secret shorter than this is no key (and replacing it would mangle ordinary text).
MIN_SECRET: Final = 4

_SECRET_WORDS: Final = frozenset(
    {
        "authorization",
        "auth",
        "apikey",
        "token",
        "secret",
        "signature",
        "sig",
        "cookie",
        "password",
        "passwd",
        "credential",
        "credentials",
        "jwt",
        "sessionid",
    }
)
# ``key`` is a credential after these words (``x-api-key``, ``Ocp-Apim-Subscription-Key``).
_KEY_QUALIFIERS: Final = frozenset({"api", "subscription", "access", "secret", "private", "auth"})
_WORD_SPLIT: Final = re.compile(r"[-_.\s]+")
# Authorization schemes kept in front of the redaction, so a reader still tells the styles apart.
_SCHEMES: Final = frozenset({"bearer", "basic", "token"})


def is_secret_name(name: str) -> bool:
    """Whether a header or query parameter called ``name`` carries a credential (any case)."""
    words = [w for w in _WORD_SPLIT.split(name.strip().lower()) if w]
    if words == ["key"]:
        return True
    for i, word in enumerate(words):
        if word in _SECRET_WORDS:
            return True
        if word == "key" and i > 0 and words[i - 1] in _KEY_QUALIFIERS:
            return True
    return False


# JSON body fields the name rule would hide that hold no credential: Anthropic's thinking
# ``signature`` is an opaque blob the API wants back with the turn (the Request tab shows it).
_NOT_SECRET_FIELDS: Final = frozenset({"signature"})


def is_secret_field(name: str) -> bool:
    """Whether a JSON body field called ``name`` holds a credential (``api_key``, ``token``...)."""
    return name.strip().lower() not in _NOT_SECRET_FIELDS and is_secret_name(name)


def _redact_value(name: str, value: str, secrets: Sequence[str]) -> str:
    if not is_secret_name(name):
        return scrub(value, *secrets) if secrets else value
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in _SCHEMES:
        return f"{scheme} {REDACTED}"
    return REDACTED


def redact_headers(headers: Mapping[str, str], secrets: Sequence[str] = ()) -> dict[str, str]:
    """A copy of ``headers`` with credential values replaced by [redacted], and each of
    ``secrets`` scrubbed from the other values (a key echoed under any name)."""
    return {
        str(name): _redact_value(str(name), str(value), secrets) for name, value in headers.items()
    }


def redact_pairs(
    headers: Iterable[tuple[str, str]], secrets: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """The same for a list of (name, value) pairs (response headers keep their order)."""
    return [(str(name), _redact_value(str(name), str(value), secrets)) for name, value in headers]


def redact_url(url: str) -> str:
    """``url`` with a password in it and the values of credential query parameters as
    [redacted] (``?api_key=``, ``?key=``, ``&token=``, ``&sig=``...)."""
    head, sep, query = url.partition("?")
    fragment = ""
    if sep and "#" in query:
        query, _, rest = query.partition("#")
        fragment = "#" + rest
    scheme, dslash, rest_of_head = head.partition("://")
    if dslash:
        authority, slash, path = rest_of_head.partition("/")
        user, at, host = authority.rpartition("@")
        if at and ":" in user:
            authority = f"{user.partition(':')[0]}:{REDACTED}@{host}"
        head = f"{scheme}://{authority}{slash}{path}"
    if not sep:
        return head
    parts = []
    for pair in query.split("&"):
        name, eq, _value = pair.partition("=")
        secret = eq and is_secret_name(unquote(name))
        parts.append(f"{name}={REDACTED}" if secret else pair)
    return head + "?" + "&".join(parts) + fragment


def secrets_of(headers: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The credential values in ``headers`` (with and without their scheme), to scrub from text
    and bodies wherever else they turn up (an upstream that echoes the key)."""
    out: list[str] = []
    for name, value in headers:
        if is_secret_name(name) and value and REDACTED not in value:
            out.append(value)
            rest = value.partition(" ")[2]
            if rest:
                out.append(rest)
    return tuple(dict.fromkeys(s for s in out if len(s) >= MIN_SECRET))


def _usable(secrets: Iterable[str | None]) -> list[str]:
    # Longest first: a key that holds a shorter one is replaced whole, not in part.
    return sorted({s for s in secrets if s and len(s) >= MIN_SECRET}, key=len, reverse=True)


def scrub(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each secret (at least 4 chars) replaced by [redacted]."""
    for secret in _usable(secrets):
        text = text.replace(secret, REDACTED)
    return text


def scrub_bytes(data: bytes, secrets: Sequence[str]) -> bytes:
    """``data`` with every secret (at least 4 characters) replaced by ``[redacted]``."""
    for secret in _usable(secrets):
        data = data.replace(secret.encode(), _REDACTED_BYTES)
    return data


class StreamScrubber:
    """Scrubs a byte stream read in pieces: a key split across two or more reads is caught.

    Each ``feed`` returns what is safe to pass on now; it holds back the shortest tail of what
    came that could still be the start of a key (usually nothing), and ``flush`` hands on what
    is held when the stream ends. Without secrets every read passes through unchanged.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = tuple(s.encode() for s in _usable(secrets))
        self._held = b""

    def feed(self, data: bytes) -> bytes:
        if not self.secrets:
            return data
        buffer = self._held + data if self._held else data
        for secret in self.secrets:
            if secret in buffer:
                buffer = buffer.replace(secret, _REDACTED_BYTES)
        keep = self._tail_to_hold(buffer)
        if keep:
            self._held = buffer[-keep:]
            return buffer[:-keep]
        self._held = b""
        return buffer

    def flush(self) -> bytes:
        """What is held back (a key's possible start that the stream never finished)."""
        held, self._held = self._held, b""
        return held

    def _tail_to_hold(self, buffer: bytes) -> int:
        """The length of the longest tail of ``buffer`` that a secret starts with."""
        longest = 0
        size = len(buffer)
        for secret in self.secrets:
            first = secret[:1]
            # Only a tail shorter than the secret can be its unfinished start.
            start = max(size - len(secret) + 1, 0)
            at = buffer.find(first, start)
            while at != -1:
                tail = size - at
                if tail > longest and secret.startswith(buffer[at:]):
                    longest = tail
                    break  # later positions give shorter tails
                at = buffer.find(first, at + 1)
        return longest
