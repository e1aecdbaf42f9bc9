"""API keys in the OS keyring (service "playground", user = provider id), env vars as fallback."""

from __future__ import annotations

import logging
import os
from typing import Literal

from playground.transport.providers import Provider

__all__ = ["SERVICE", "SecretStoreError", "delete_key", "get_key", "key_source", "set_key"]

SERVICE = "playground"
_log = logging.getLogger(__name__)

KeySource = Literal["keyring", "env"]


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
    """The key for ``provider``: keyring first, then its env var; None when neither has one."""
    return _keyring_get(provider) or _env_key(provider)


def _env_key(provider: Provider) -> str | None:
    if not provider.env_var:
        return None
    return os.environ.get(provider.env_var) or None


def key_source(provider: Provider) -> KeySource | None:
    """Where get_key would find the key: "keyring", "env", or None."""
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


def set_key(provider: Provider, key: str) -> None:
    """Store ``key`` in the OS keyring; SecretStoreError when no usable keyring is available."""
    if not key:
        raise SecretStoreError("An empty key cannot be stored; use delete_key to remove one.")
    try:
        import keyring

        keyring.set_password(SERVICE, provider.id, key)
        stored = keyring.get_password(SERVICE, provider.id)
    except Exception as exc:
        raise SecretStoreError(
            f"The system keyring could not store the key for {provider.name} "
            f"({type(exc).__name__}); set {provider.env_var or 'an environment variable'} instead."
        ) from None  # no chained exception: its text could include the key
    if stored != key:
        # The null backend (and some broken ones) accept the call and keep nothing.
        raise SecretStoreError(
            f"No usable system keyring ({_backend_name()}) kept the key for {provider.name}; "
            f"set {provider.env_var or 'an environment variable'} instead."
        )


def delete_key(provider: Provider) -> None:
    """Remove the stored key for ``provider``; nothing happens when none is stored."""
    try:
        import keyring
        from keyring.errors import PasswordDeleteError

        try:
            keyring.delete_password(SERVICE, provider.id)
        except PasswordDeleteError:
            return  # nothing stored
    except Exception as exc:
        raise SecretStoreError(
            f"The system keyring could not delete the key for {provider.name} "
            f"({type(exc).__name__})."
        ) from None
