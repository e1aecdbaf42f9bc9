"""PySide6 regression: void Qt calls must not leak references to None (6.12.0: none_dealloc)."""

from __future__ import annotations

import sys
from typing import Any


def test_insert_plain_text_keeps_none_refcount(qapp: Any) -> None:
    from PySide6.QtWidgets import QPlainTextEdit

    edit = QPlainTextEdit()
    for _ in range(100):  # warm up caches that hold None once
        edit.insertPlainText("x\n")
    before = sys.getrefcount(None)
    for _ in range(10_000):
        edit.insertPlainText("x\n")
    after = sys.getrefcount(None)
    # A leaking binding adds one reference per call (10,000 here); allow a tiny tolerance.
    assert after - before <= 10, f"None refcount grew by {after - before}"
    assert edit.blockCount() == 10_101
