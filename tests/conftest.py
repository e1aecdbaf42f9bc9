"""Shared test setup: Qt offscreen, a null keyring, and the captures folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


@pytest.fixture(autouse=True)
def _no_session_keys() -> Iterator[None]:
    """A key saved without a keyring lives in memory until quit: each test starts without one."""
    yield
    from playground.transport.secrets import forget_session_keys

    forget_session_keys()


_UI_TESTS = Path(__file__).resolve().parent / "ui"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/ui drives Qt: mark it ``gui`` here, not by hand in each file."""
    for item in items:
        if _UI_TESTS in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.gui)
