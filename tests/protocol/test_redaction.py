"""The redaction rule: credential names by rule (headers and query parameters), and key values
scrubbed from a byte stream however the reads cut them."""

from __future__ import annotations

import pytest

from playground.protocol.redaction import (
    REDACTED,
    StreamScrubber,
    is_secret_name,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
    secrets_of,
)

KEY = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "proxy-authorization",
        "x-api-key",
        "API-KEY",
        "api_key",
        "apikey",
        "X-Auth-Token",
        "Ocp-Apim-Subscription-Key",
        "x-goog-api-key",
        "X-Amz-Security-Token",
        "x-amz-signature",
        "Cookie",
        "Set-Cookie",
        "X-Client-Secret",
        "x-password",
        "X-Auth",
        "access_token",
        "token",
        "key",
        "sig",
        "x-access-key",
    ],
)
def test_credential_names_are_secret_whatever_their_case(name: str) -> None:
    assert is_secret_name(name) and is_secret_name(name.upper()) and is_secret_name(name.lower())


@pytest.mark.parametrize(
    "name",
    [
        "content-type",
        "x-ratelimit-remaining-tokens",
        "x-ratelimit-limit-tokens",
        "idempotency-key",
        "openai-organization",
        "x-request-id",
        "www-authenticate",
        "max_tokens",
        "model",
        "keyboard",
    ],
)
def test_descriptive_names_stay_readable(name: str) -> None:
    assert not is_secret_name(name)


def test_headers_redacted_by_rule_keep_the_scheme() -> None:
    headers = {
        "Authorization": f"Bearer {KEY}",
        "X-Auth-Token": KEY,
        "Ocp-Apim-Subscription-Key": KEY,
        "X-Request-Id": "r1",
    }
    assert redact_headers(headers) == {
        "Authorization": f"Bearer {REDACTED}",
        "X-Auth-Token": REDACTED,
        "Ocp-Apim-Subscription-Key": REDACTED,
        "X-Request-Id": "r1",
    }
    pairs = [("Set-Cookie", f"s={KEY}"), ("x-ratelimit-remaining-tokens", "100")]
    assert redact_pairs(pairs) == [
        ("Set-Cookie", REDACTED),
        ("x-ratelimit-remaining-tokens", "100"),
    ]
    assert set(secrets_of(headers.items())) == {f"Bearer {KEY}", KEY}


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (f"https://h/v1/models?key={KEY}", "https://h/v1/models?key=[redacted]"),
        (f"https://h/v1?api_key={KEY}&n=1", "https://h/v1?api_key=[redacted]&n=1"),
        (f"https://h/v1?a=1&Token={KEY}#f", "https://h/v1?a=1&Token=[redacted]#f"),
        (f"https://h/x?sig={KEY}&max_tokens=5", "https://h/x?sig=[redacted]&max_tokens=5"),
        (f"https://h/x?x%2Dapi%2Dkey={KEY}", "https://h/x?x%2Dapi%2Dkey=[redacted]"),
        (f"https://user:{KEY}@h/v1", "https://user:[redacted]@h/v1"),
        ("https://h/v1/chat/completions", "https://h/v1/chat/completions"),
    ],
)
def test_credential_query_parameters_are_redacted(url: str, expected: str) -> None:
    assert redact_url(url) == expected
    assert KEY not in redact_url(url)


def test_scrub_replaces_the_longer_secret_first() -> None:
    assert scrub(f"Bearer {KEY} and {KEY}", KEY, f"Bearer {KEY}") == f"{REDACTED} and {REDACTED}"


def _through(scrubber: StreamScrubber, reads: list[bytes]) -> bytes:
    return b"".join(scrubber.feed(r) for r in reads) + scrubber.flush()


def test_a_key_split_across_two_reads_at_every_offset_is_caught() -> None:
    stream = b'data: {"echo": "' + KEY.encode() + b'"}\n\n'
    start = stream.index(KEY.encode())
    for cut in range(len(stream) + 1):
        out = _through(StreamScrubber([KEY]), [stream[:cut], stream[cut:]])
        assert KEY.encode() not in out, cut
        assert out == stream.replace(KEY.encode(), REDACTED.encode()), cut
    assert start > 0


def test_a_key_split_across_many_reads_is_caught() -> None:
    stream = (b"x" * 7 + KEY.encode()) * 3 + b"tail"
    for size in range(1, len(KEY) + 2):
        reads = [stream[i : i + size] for i in range(0, len(stream), size)]
        out = _through(StreamScrubber([KEY, f"Bearer {KEY}"]), reads)
        assert out == stream.replace(KEY.encode(), REDACTED.encode()), size


def test_the_held_tail_of_a_key_that_never_finishes_is_handed_on() -> None:
    scrubber = StreamScrubber([KEY])
    assert scrubber.feed(b"abc " + KEY[:5].encode()) == b"abc "
    assert scrubber.flush() == KEY[:5].encode()
    assert StreamScrubber([]).feed(KEY.encode()) == KEY.encode()  # nothing to scrub: as it came


def test_body_fields_follow_the_rule_but_keep_thinking_signatures() -> None:
    from playground.protocol.redaction import is_secret_field

    assert is_secret_field("api_key") and is_secret_field("token") and is_secret_field("password")
    assert not is_secret_field("signature") and not is_secret_field("max_tokens")


def test_one_module_owns_the_rule() -> None:
    """No other module keeps a list of credential names of its own (they drift apart)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "playground"
    owners = {root / "protocol" / "redaction.py", root / "transport" / "redact.py"}
    pattern = re.compile(r"^\s*_?[A-Z_]*SECRET[A-Z_]*\s*(?::[^=]*)?=", re.MULTILINE)
    others = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p not in owners and pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert others == []
