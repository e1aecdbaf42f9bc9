"""Captures of the exchanges under ``--save DIR``, written by the app's own capture journal.

Each exchange is journaled line by line as its bytes arrive (``CaptureJournal``: a ``.part`` file
flushed per read, renamed into place at the end), so a crash keeps what came and a finished file
appears atomically. The journal redacts header values itself; the proxy hands it headers already
redacted (anthropic-* too) and the exchange's credentials to scrub from the URL and body text.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from playground.proxy.exchange import Exchange
from playground.proxy.sinks import RunSinks
from playground.runs.journal import CaptureJournal

__all__ = ["Recorder", "capture_name"]

_UNSAFE = re.compile(r"[^a-z0-9]+")


def capture_name(ex: Exchange) -> str:
    """``20261201-100512-0003-chat.capture.jsonl``: sorted by time, unique per exchange."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime())
    kind = ex.route or _UNSAFE.sub("-", ex.path.split("?", 1)[0].lower()).strip("-") or "root"
    return f"{stamp}-{ex.id:04d}-{kind[:40]}.capture.jsonl"


class Recorder(RunSinks):
    """Writes one capture per exchange into ``folder``; sets ``ex.capture`` once it is in place."""

    def __init__(self, folder: Path, status_of: Callable[[Exchange], str | None]) -> None:
        super().__init__(self._journal)
        self.folder = Path(folder)
        self.status_of = status_of  # the decoder's verdict (Verdicts.status), for the end line
        self._journals: dict[int, CaptureJournal] = {}
        self._reported: set[int] = set()

    def _journal(self, ex: Exchange) -> CaptureJournal:
        journal = CaptureJournal(
            self.folder / capture_name(ex),
            ex.route or "other",
            secrets=ex.secrets,
            status_source=lambda: self.status_of(ex),
        )
        journal.started_at = ex.started_at
        self._journals[ex.id] = journal
        return journal

    def on_request(self, ex: Exchange) -> None:
        super().on_request(ex)
        self._report(self._journals[ex.id], ex)

    def on_end(self, ex: Exchange) -> None:
        super().on_end(ex)
        journal = self._journals.pop(ex.id, None)
        if journal is not None and self._report(journal, ex):
            ex.capture = str(journal.path)
        self._reported.discard(ex.id)

    def _report(self, journal: CaptureJournal, ex: Exchange) -> bool:
        """False (said once on stderr) when the capture could not be written; the relay goes on."""
        if journal.write_error is None:
            return True
        if ex.id not in self._reported:
            self._reported.add(ex.id)
            print(f"proxy: {journal.write_error} ({journal.path.name})", file=sys.stderr)
        return False
