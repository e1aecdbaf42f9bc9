"""API keys: the OS keyring (service "playground", user = provider id), else memory, else env vars.

On a machine with no usable keyring backend (keyring's fail or null backend) a saved key is kept
in this process's memory until it quits, never written anywhere; env vars keep working as before.
"""

from __future__ import annotations

import logging
import os
from typing import Literal

from playground.transport.providers import Provider

__all__ = [
    "NO_KEYRING_NOTE",
    "SERVICE",
    "SecretStoreError",
    "delete_key",
    "forget_session_keys",
    "get_key",
    "key_source",
    "set_key",
]

SERVICE = "playground"
_log = logging.getLogger(__name__)

KeySource = Literal["keyring", "memory", "env"]

# What the settings dialog shows next to a key that only this process holds.
NO_KEYRING_NOTE = "kept until you quit: this system has no keyring"

# Keys saved while no keyring could keep them: provider id -> key, for this process only.
_session_keys: dict[str, str] = {}


class SecretStoreError(RuntimeError):
    """The keyring could not store or delete a key; the message never contains the key."""


def _keyring_get(provider: Provider) -> str | None:
    try:
        import keyring

        value = keyring.get_password(SERVICE, provider.id)
    except Exception as exc:  # no backend, locked store, D-Bus gone: fall back to env vars
        # Only the exception's type: a backend's message could echo what it was handling.
        _log.info("keyring unavailable for %s (%s)", provider.id, type(exc).__name__)
        return None
    return value or None


def get_key(provider: Provider) -> str | None:
    """The key for ``provider``: this session's, the keyring's, then its env var; else None."""
    return _session_keys.get(provider.id) or _keyring_get(provider) or _env_key(provider)


def _env_key(provider: Provider) -> str | None:
    if not provider.env_var:
        return None
    return os.environ.get(provider.env_var) or None


def key_source(provider: Provider) -> KeySource | None:
    """Where get_key would find the key: "memory", "keyring", "env", or None."""
    if provider.id in _session_keys:
        return "memory"
    if _keyring_get(provider):
        return "keyring"
    if _env_key(provider):
        return "env"
    return None


def _backend_name() -> str:
    try:
        import keyring

        return type(keyring.get_keyring()).__name__
    except Exception:
        return "none"


def set_key(provider: Provider, key: str) -> KeySource:
    """Store ``key``: in the OS keyring when one keeps it ("keyring"), else in memory ("memory").

    SecretStoreError only for an empty key: a missing keyring is not an error, the key just
    lives until the program quits.
    """
    if not key:
        raise SecretStoreError("An empty key cannot be stored; use delete_key to remove one.")
    try:
        import keyring

        keyring.set_password(SERVICE, provider.id, key)
        stored = keyring.get_password(SERVICE, provider.id)
    except Exception as exc:
        # Only the type: a backend's message could include the key (and no chained exception).
        _log.info("keyring cannot store for %s (%s)", provider.id, type(exc).__name__)
        stored = None
    if stored == key:
        _session_keys.pop(provider.id, None)
        return "keyring"
    # The fail backend raises, the null backend accepts the call and keeps nothing: either way
    # this process keeps the key, in memory only.
    _log.info("no usable keyring (%s): %s's key kept in memory", _backend_name(), provider.id)
    _session_keys[provider.id] = key
    return "memory"


def delete_key(provider: Provider) -> None:
    """Remove the stored key for ``provider``; nothing happens when none is stored."""
    held = _session_keys.pop(provider.id, None) is not None
    try:
        import keyring
        from keyring.errors import NoKeyringError, PasswordDeleteError

        try:
            keyring.delete_password(SERVICE, provider.id)
        except (PasswordDeleteError, NoKeyringError):
            return  # nothing stored (with no keyring at all, nothing can be)
    except Exception as exc:
        if held:  # the key lived in memory only, and it is gone now
            return
        raise SecretStoreError(
            f"The system keyring could not delete the key for {provider.name} "
            f"({type(exc).__name__})."
        ) from None


def forget_session_keys() -> None:
    """Drop every key held in memory (as quitting does)."""
    _session_keys.clear()
