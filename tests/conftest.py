"""Shared test setup: Qt offscreen, a null keyring, and the captures folder."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The tests never touch the user's real keyring or settings.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")

import pytest

CAPTURES = Path(__file__).resolve().parents[2] / "shared" / "captures"
if not CAPTURES.is_dir():  # CI lays shared/ beside the checkout; allow an override too
    CAPTURES = Path(os.environ.get("PLAYGROUND_CAPTURES", "../shared/captures")).resolve()


@pytest.fixture(scope="session")
def captures_dir() -> Path:
    if not CAPTURES.is_dir():
        pytest.fail(f"captures not found at {CAPTURES}")
    return CAPTURES
