"""Writing a capture in tests through the app's one writer, ``runs.journal.CaptureJournal``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playground.runs.journal import CaptureJournal


class RecordedCapture:
    """A capture written call by call, as a run's sink would: request, response, chunks, end.

    ``status`` is the verdict the end line records (the panel's status in the app).
    """

    def __init__(
        self,
        path: Path,
        *,
        route: str,
        method: str = "POST",
        url: str = "u",
        headers: dict[str, str] | None = None,
        body: Any = None,
    ) -> None:
        self.path = Path(path)
        self.status: str | None = None
        self.journal = CaptureJournal(self.path, route, status_source=lambda: self.status)
        raw = body if isinstance(body, bytes | None) else json.dumps(body).encode()
        self.journal.on_request(method, url, dict(headers or {}), raw)

    @property
    def part_path(self) -> Path:
        return self.journal.part_path

    def response(self, status: int, headers: Any, t: float) -> None:
        pairs = list(headers.items()) if isinstance(headers, dict) else list(headers)
        self.journal.on_response(status, pairs, t)

    def chunk(self, t: float, data: bytes) -> None:
        self.journal.on_chunk(t, data)

    def finalize(self, t: float, status: str) -> Path:
        self.status = status
        self.journal.on_end(t)
        return self.path
