"""Redaction of credentials for the transport and what builds on it: the protocol's one rule
(``playground.protocol.redaction``), under the names its importers have always used."""

from __future__ import annotations

from playground.protocol.redaction import (
    REDACTED,
    StreamScrubber,
    is_secret_field,
    is_secret_name,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
    scrub_bytes,
    secrets_of,
)

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
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

# Well-known credential header names, for code that lists names (an export skips them); whether
# a header carries a credential is ``is_secret_name``'s answer, which covers these and more.
SECRET_HEADERS = frozenset(
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
