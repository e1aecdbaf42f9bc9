"""HTTP error sentences, provider profiles and the key store (keyring, env fallback, no leaks)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from playground.protocol.redaction import redact_headers, redact_pairs, scrub
from playground.transport import secrets
from playground.transport.errors import describe_http_error
from playground.transport.providers import PROVIDERS, auth_headers, provider_by_id, url_for

KEY = "sk-or-v1-VERYSECRET0123456789"
STATUSES = [400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504]


@pytest.mark.parametrize("status", STATUSES)
def test_every_status_has_its_own_sentence(status: int) -> None:
    json_msg = describe_http_error(
        status, b'{"error":{"message":"Model is busy."}}', "application/json"
    )
    assert json_msg.startswith(f"HTTP {status}: ")
    assert "“Model is busy”." in json_msg and "\n" not in json_msg
    empty = describe_http_error(status, b"", None)
    assert empty.endswith("(the response body was empty).")
    html = describe_http_error(status, b"<html>oops</html>", "text/html; charset=utf-8")
    assert "not a JSON error: 17 bytes of text/html" in html


def test_statuses_read_differently() -> None:
    sentences = {describe_http_error(s, b"", None) for s in STATUSES}
    assert len(sentences) == len(STATUSES)
    assert "rate limiting" in describe_http_error(429, b"", None)
    assert "could not reach the model" in describe_http_error(502, b"", None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"message": "No API key provided"}', "No API key provided"),  # the gateway's bare 401
        (
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            "Overloaded",
        ),
        (
            b'{"error":{"code":429,"message":"Rate limit exceeded","metadata":{}}}',
            "Rate limit exceeded",
        ),
        (b'{"error": "flat string"}', "flat string"),
        (b'{"detail": "Not Found"}', "Not Found"),
    ],
)
def test_envelopes(body: bytes, message: str) -> None:
    assert f"“{message}”." in describe_http_error(401, body, "application/json")


def test_retry_after_is_said() -> None:
    assert describe_http_error(429, b"", None, "7").endswith("Retry after 7 seconds.")
    assert describe_http_error(503, b"", None, "1").endswith("Retry after 1 second.")
    date = "Wed, 21 Oct 2026 07:28:00 GMT"
    assert describe_http_error(503, b"", None, date).endswith(f"Retry after {date}.")


def test_json_that_is_not_an_envelope() -> None:
    assert "not a JSON error" in describe_http_error(500, b"[1, 2]", "application/json")


def test_provider_profiles() -> None:
    ids = [p.id for p in PROVIDERS]
    assert ids == ["simulator", "vultr", "openai", "anthropic", "openrouter", "custom"]
    assert provider_by_id("vultr").base_url == "https://api.vultrinference.com/v1"
    assert provider_by_id("vultr").env_var == "VULTR_INFERENCE_API_KEY"
    assert provider_by_id("openrouter").env_var == "OPENROUTER_API_KEY"
    assert provider_by_id("custom").env_var == "PLAYGROUND_API_KEY"
    assert provider_by_id("simulator").builtin
    with pytest.raises(KeyError, match="unknown provider"):
        provider_by_id("nope")
    assert auth_headers(provider_by_id("openai"), "k") == {"Authorization": "Bearer k"}
    assert auth_headers(provider_by_id("anthropic"), "k") == {
        "anthropic-version": "2023-06-01",
        "x-api-key": "k",
    }
    assert auth_headers(provider_by_id("simulator"), None) == {}
    assert url_for(provider_by_id("openai"), "speech") == "https://api.openai.com/v1/audio/speech"
    assert url_for(provider_by_id("openrouter"), "images") == "https://openrouter.ai/api/v1/images"
    sim = provider_by_id("simulator")
    assert (
        url_for(sim, "chat", "http://127.0.0.1:5/v1/") == "http://127.0.0.1:5/v1/chat/completions"
    )
    with pytest.raises(ValueError):
        url_for(sim, "chat")


def test_redaction() -> None:
    headers = {"Authorization": f"Bearer {KEY}", "X-Api-Key": KEY, "Accept": "text/event-stream"}
    red = redact_headers(headers)
    assert red == {
        "Authorization": "Bearer [redacted]",
        "X-Api-Key": "[redacted]",
        "Accept": "text/event-stream",
    }
    assert KEY not in repr(redact_pairs(list(headers.items())))
    assert scrub(f"oops {KEY} oops", KEY) == "oops [redacted] oops"


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise PasswordDeleteError("not found")
        del self.store[(service, username)]


class BrokenKeyring(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError(f"backend exploded while handling {username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(f"could not store {password}")  # a rude backend echoing the secret


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_keyring_first_then_env(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai = provider_by_id("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert secrets.get_key(openai) is None and secrets.key_source(openai) is None
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    assert secrets.get_key(openai) == "env-key" and secrets.key_source(openai) == "env"
    secrets.set_key(openai, KEY)
    assert memory_keyring.store == {("playground", "openai"): KEY}
    assert secrets.get_key(openai) == KEY and secrets.key_source(openai) == "keyring"
    secrets.delete_key(openai)
    secrets.delete_key(openai)  # deleting nothing is fine
    assert secrets.get_key(openai) == "env-key"
    assert secrets.get_key(provider_by_id("simulator")) is None


@pytest.fixture
def no_session_keys() -> Iterator[None]:
    secrets.forget_session_keys()
    yield
    secrets.forget_session_keys()


@pytest.mark.parametrize(
    "backend",
    ["keyring.backends.null.Keyring", "keyring.backends.fail.Keyring"],
    ids=["null", "fail"],
)
def test_no_keyring_keeps_the_key_in_memory_until_quit(
    backend: str, no_session_keys: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The null backend accepts a key and keeps nothing; the fail one (what keyring picks on a
    # Linux box without Secret Service or KWallet) raises. Either way the key lives in memory.
    module, _, name = backend.rpartition(".")
    previous = keyring.get_keyring()
    keyring.set_keyring(getattr(importlib.import_module(module), name)())
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("VULTR_INFERENCE_API_KEY", "env-key")
    vultr, openai = provider_by_id("vultr"), provider_by_id("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:
        assert secrets.get_key(vultr) == "env-key" and secrets.key_source(vultr) == "env"
        assert secrets.set_key(vultr, KEY) == "memory"
        assert secrets.get_key(vultr) == KEY and secrets.key_source(vultr) == "memory"
        assert secrets.get_key(openai) is None  # one provider's key is not another's
        assert secrets.NO_KEYRING_NOTE == "kept until you quit: this system has no keyring"
        secrets.delete_key(vultr)  # Forget: the memory copy goes, the env var shows again
        assert secrets.get_key(vultr) == "env-key" and secrets.key_source(vultr) == "env"
        secrets.delete_key(vultr)  # forgetting nothing is fine, keyring or none
        secrets.set_key(vultr, KEY)
        secrets.forget_session_keys()  # what quitting does
        assert secrets.get_key(vultr) == "env-key"
    finally:
        keyring.set_keyring(previous)
    # Nothing was written to disk on the way.
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]


def test_a_working_keyring_takes_over_from_memory(
    memory_keyring: MemoryKeyring, no_session_keys: None
) -> None:
    openai = provider_by_id("openai")
    secrets._session_keys["openai"] = "older-session-key"
    assert secrets.set_key(openai, KEY) == "keyring"
    assert secrets.key_source(openai) == "keyring" and secrets.get_key(openai) == KEY
    assert "openai" not in secrets._session_keys


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(secrets.SecretStoreError):
        secrets.set_key(provider_by_id("vultr"), "")


def test_broken_backend_never_leaks(
    no_session_keys: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(BrokenKeyring())
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-fallback")
    try:
        caplog.set_level(logging.DEBUG)
        anthropic = provider_by_id("anthropic")
        assert secrets.get_key(anthropic) == "env-fallback"
        # The backend raises with the key in its message: the key is kept in memory, and
        # neither a log record nor an exception carries the backend's text.
        assert secrets.set_key(anthropic, KEY) == "memory"
        assert secrets.get_key(anthropic) == KEY
        assert KEY not in caplog.text
        secrets.delete_key(anthropic)  # the memory copy goes even though the backend is broken
        assert secrets.get_key(anthropic) == "env-fallback"
    finally:
        keyring.set_keyring(previous)
