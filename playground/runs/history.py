"""The run history per panel: every run journaled as it streams, listed newest first, reopened.

Layout under the data folder: ``history/index.json`` (summaries, rewritten atomically) and
``history/runs/<id>.capture.jsonl`` (one capture per run, ``.part`` while it streams).
A corrupt index or capture found at start-up is renamed ``*.corrupt`` and reported in
``RunHistory.messages`` (set aside with a message, and the program starts). Given a background
``FileWriter`` (runs/writer.py), a run's index and capture writes happen on its thread, in order.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets as _random
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playground.protocol import safe_json
from playground.protocol.capture import Capture
from playground.runs.atomic import write_json_atomically
from playground.runs.journal import PART_SUFFIX, CaptureJournal, JournalError, read_journal
from playground.runs.paths import data_dir
from playground.runs.set_aside import set_aside
from playground.runs.writer import FileWriter

__all__ = ["HistoryError", "LoadedRun", "RunHistory", "RunRecorder", "RunSummary"]

INDEX_FORMAT = "playground-history/1"
CAPTURE_SUFFIX = ".capture.jsonl"
PREVIEW_CHARS = 120


class HistoryError(RuntimeError):
    """A run that cannot be reopened; the message says which and why, in one sentence."""


@dataclass
class RunSummary:
    """One row of the history list."""

    id: str
    route: str
    started_at: str
    status: str | None = None  # complete | incomplete | failed | truncated | cancelled | streaming
    http_status: int | None = None
    model: str = ""
    provider_id: str = ""
    url: str = ""
    duration: float | None = None
    ttft: float | None = None  # time to first token (protocol/figures.py), as the panel saw it
    bytes: int = 0
    preview: str = ""
    error: str = ""
    prompt: str = ""  # a conversational run's last user turn: rows of one thread differ by it

    @classmethod
    def from_json(cls, data: object) -> RunSummary:
        """The summary an index record holds; ValueError naming the first field of a wrong type
        (an index is a file anyone can edit: every field is checked, none trusted)."""
        if not isinstance(data, dict):
            raise ValueError("a record that is not an object")
        values = {k: v for k, v in data.items() if k in _FIELD_CHECKS}
        for name in ("id", "route"):
            if not isinstance(values.get(name), str) or not values[name]:
                raise ValueError(f"a record without {name}")
        values.setdefault("started_at", "")
        for name, value in values.items():
            if not _FIELD_CHECKS[name](value):
                raise ValueError(f"a record whose {name!r} has the wrong type")
        return cls(**values)


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_text_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_http_status_or_none(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 999


def _is_seconds_or_none(value: object) -> bool:
    if value is None or _is_count(value):
        return True
    return isinstance(value, float) and math.isfinite(value) and value >= 0


# What each index field may hold (a text field is never None: the view shows them as text).
_FIELD_CHECKS: dict[str, Callable[[object], bool]] = {
    "id": _is_text,
    "route": _is_text,
    "started_at": _is_text,
    "status": _is_text_or_none,
    "http_status": _is_http_status_or_none,
    "model": _is_text,
    "provider_id": _is_text,
    "url": _is_text,
    "duration": _is_seconds_or_none,
    "ttft": _is_seconds_or_none,
    "bytes": _is_count,
    "preview": _is_text,
    "error": _is_text,
    "prompt": _is_text,
}

_SUMMARY_FIELDS = tuple(f.name for f in fields(RunSummary))


@dataclass
class LoadedRun:
    """A run reopened from disk: its summary and everything the capture holds."""

    summary: RunSummary
    path: Path
    request: dict[str, Any]
    response_status: int | None
    response_headers: list[tuple[str, str]]
    chunks: list[tuple[float, bytes]]
    end: dict[str, Any] | None

    @property
    def content_type(self) -> str | None:
        for name, value in self.response_headers:
            if name.lower() == "content-type":
                return value
        return None


def _last_prompt(route: str, body: dict[str, Any]) -> str:
    """The text of the last user turn a conversational body sends, on one line, shortened."""
    from playground.protocol.conversation.bodies import CONVERSATION_ROUTES, parse_body

    if route not in CONVERSATION_ROUTES:
        return ""
    try:
        turns = parse_body(body, route).conversation.turns
    except Exception:  # a body that is no conversation: the row has no prompt
        return ""
    for turn in reversed(turns):
        if turn.role == "user":
            return " ".join(turn.text.split())[:PREVIEW_CHARS]
    return ""


def _new_id(route: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    return f"{stamp}-{route}-{_random.token_hex(3)}"


class RunRecorder(CaptureJournal):
    """The RunSink that journals one run into the history (put it after the panel's own sink)."""

    def __init__(self, history: RunHistory, summary: RunSummary, path: Path, **kw: Any) -> None:
        super().__init__(path, summary.route, writer=history.writer, **kw)
        self.history = history
        self.summary = summary

    @property
    def run_id(self) -> str:
        return self.summary.id

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        super().on_request(method, url, headers, body)
        self.summary.url = str(self.request["url"]) if self.request else url
        body_json = self.request.get("body") if self.request else None
        if isinstance(body_json, dict) and not self.summary.model:
            self.summary.model = str(body_json.get("model") or "")
        if isinstance(body_json, dict):
            self.summary.prompt = _last_prompt(self.summary.route, body_json)
        self.summary.started_at = self.started_at
        self.summary.status = "streaming"
        self.history._put(self.summary)

    def on_end(self, t: float) -> None:
        super().on_end(t)
        self.summary.status = self.status or self.summary.status
        if self.summary.status == "streaming":
            self.summary.status = None
        self.summary.http_status = self.http_status
        self.summary.duration = round(t, 3)
        self.summary.bytes = self.bytes
        if self.transport_error is not None and not self.summary.error:
            self.summary.error = self.transport_error.message
        self.history._put(self.summary)

    def finish(
        self,
        status: str | None = None,
        preview: str | None = None,
        error: str | None = None,
        ttft: float | None = None,
    ) -> None:
        """What the panel showed at the end (its decoder's status, text, error, time to first
        token) for the list."""
        if status:
            self.summary.status = status
        if ttft is not None:
            self.summary.ttft = round(ttft, 4)
        if preview is not None:
            self.summary.preview = " ".join(preview.split())[:PREVIEW_CHARS]
        if error is not None:
            self.summary.error = error
        self.history._put(self.summary)


class RunHistory:
    """Runs kept on disk under ``root`` (default: ``<data dir>/history``)."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        max_runs_per_route: int = 200,
        writer: FileWriter | None = None,
    ) -> None:
        self.root = Path(root) if root is not None else data_dir() / "history"
        # Where the index and the captures are written durably: inline unless one is given.
        self.writer = writer if writer is not None else FileWriter(threaded=False)
        self.runs_dir = self.root / "runs"
        self.index_path = self.root / "index.json"
        self.max_runs_per_route = max_runs_per_route
        self.messages: list[str] = []  # what start-up set aside or recovered, for the status bar
        self._runs: dict[str, RunSummary] = {}
        for folder in (self.root, self.runs_dir):
            if folder.exists() and not folder.is_dir():  # a file where the folder belongs
                aside = set_aside(folder)
                self.messages.append(
                    f"A file stood where the run history's folder belongs; "
                    f"it was set aside as {aside.name}."
                )
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        if self._load():  # at start-up, on the caller: a folder that cannot be written raises
            self._write_index(self._index_data())

    # -- public API --------------------------------------------------------------------------
    def start_run(
        self,
        route: str,
        *,
        provider_id: str = "",
        model: str = "",
        secrets: tuple[str, ...] = (),
        status_source: Callable[[], str | None] | None = None,
    ) -> RunRecorder:
        """A RunSink that journals a new run; the run is listed from its on_request on."""
        run_id = _new_id(route)
        summary = RunSummary(run_id, route, "", provider_id=provider_id, model=model)
        return RunRecorder(
            self, summary, self.capture_path(run_id), secrets=secrets, status_source=status_source
        )

    def list_runs(self, route: str | None = None) -> list[RunSummary]:
        """Runs of ``route`` (all routes when None), newest first."""
        runs = [r for r in self._runs.values() if route is None or r.route == route]
        return sorted(runs, key=lambda r: (r.started_at, r.id), reverse=True)

    def capture_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}{CAPTURE_SUFFIX}"

    def run_file(self, run_id: str) -> Path:
        """The run's capture as it is now: its .part while it streams or after a crash.

        Waits for the writer first, so a run that just ended is read whole, not mid-rename.
        """
        self.writer.flush()
        path = self.capture_path(run_id)
        part = path.with_name(path.name + PART_SUFFIX)
        return path if path.exists() or not part.exists() else part

    def load_run(self, run_id: str) -> LoadedRun:
        """Reopen a run (its .part when it is still streaming or was cut by a crash)."""
        summary = self._runs.get(run_id)
        if summary is None:
            raise HistoryError(f"There is no run {run_id} in the history.")
        path = self.run_file(run_id)
        try:
            journal = read_journal(path)
        except JournalError as exc:
            if path.exists():
                aside = set_aside(path)
                self.messages.append(f"{exc}; it was set aside as {aside.name}.")
            self._runs.pop(run_id, None)
            self._save_index()
            raise HistoryError(f"The run {run_id} cannot be reopened: {exc}.") from None
        return LoadedRun(
            summary,
            path,
            journal.request or {},
            journal.response_status,
            journal.header_pairs,
            journal.chunks,
            journal.end,
        )

    def delete_run(self, run_id: str) -> None:
        self._runs.pop(run_id, None)
        path = self.capture_path(run_id)

        def unlink() -> None:  # after the run's own close, should that still be queued
            for candidate in (path, path.with_name(path.name + PART_SUFFIX)):
                with contextlib.suppress(OSError):
                    candidate.unlink()

        self.writer.submit(unlink)
        self._save_index()

    # -- internals ---------------------------------------------------------------------------
    def _put(self, summary: RunSummary) -> None:
        """Record a summary; a disk problem becomes a message, never an error in the stream."""
        self._runs[summary.id] = summary
        self._prune(summary.route)
        self._save_index()

    def _prune(self, route: str) -> None:
        runs = self.list_runs(route)
        for old in runs[self.max_runs_per_route :]:
            if old.status != "streaming":
                self.delete_run(old.id)

    def _index_data(self) -> dict[str, Any]:
        # A shallow copy per summary (its fields are all str, int, float or None): asdict's deep
        # copy cost 23 ms for 160 runs, on the UI thread, as every run began.
        names = _SUMMARY_FIELDS
        runs = [{name: getattr(r, name) for name in names} for r in self.list_runs()]
        return {"format": INDEX_FORMAT, "runs": runs}

    def _save_index(self) -> None:
        """Queue the index as it is now (a copy); a newer one queued before it starts wins."""
        data = self._index_data()
        self.writer.submit(lambda: self._write_index_or_say(data), key=("index", self.index_path))

    def _write_index_or_say(self, data: dict[str, Any]) -> None:
        """A disk problem becomes a message, never an error in the stream (or the writer)."""
        try:
            self._write_index(data)
        except OSError as exc:
            message = f"The run history could not be saved ({exc.strerror or type(exc).__name__})."
            if message not in self.messages:
                self.messages.append(message)

    def _write_index(self, data: dict[str, Any]) -> None:
        write_json_atomically(self.index_path, data, prefix=".index-")

    def _load(self) -> bool:
        """Read the index and match it with the files; True when it is to be written again."""
        changed = False
        if self.index_path.exists() or self.index_path.is_symlink():
            try:
                entries = self._read_index()
            except (OSError, ValueError, UnicodeDecodeError):
                self._runs.clear()
                aside = set_aside(self.index_path)
                self.messages.append(
                    f"The run history index was unreadable; it was set aside as {aside.name} "
                    "and rebuilt from the saved runs."
                )
                entries = []
                changed = True
            skipped = 0
            for entry in entries:
                try:
                    summary = RunSummary.from_json(entry)
                except ValueError:
                    skipped += 1  # its capture, if any, is listed again from the file itself
                    continue
                self._runs[summary.id] = summary
            if skipped:
                self.messages.append(
                    f"{skipped} record(s) of the run history index had fields of the wrong type; "
                    "they were left out and rebuilt from their saved runs."
                )
                changed = True
        changed |= self._reconcile()
        return changed or not self.index_path.exists()

    def _read_index(self) -> list[Any]:
        """The index's records; ValueError (or OSError) when the file is no history index."""
        data = safe_json.loads(self.index_path.read_bytes())
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            raise ValueError("not a history index")
        runs = data.get("runs", [])
        if not isinstance(runs, list):
            raise ValueError("a history index without a list of runs")
        return runs

    def _reconcile(self) -> bool:
        """Match the index with the files: recover crashed runs, adopt orphans, drop the missing."""
        changed = False
        on_disk: dict[str, Path] = {}
        for path in self.runs_dir.iterdir():
            name = path.name
            if name.endswith(CAPTURE_SUFFIX):
                on_disk[name[: -len(CAPTURE_SUFFIX)]] = path
            elif name.endswith(CAPTURE_SUFFIX + PART_SUFFIX):
                # A run that was streaming when the program stopped: keep what was received.
                final = path.with_name(name[: -len(PART_SUFFIX)])
                os.replace(path, final)
                on_disk[final.name[: -len(CAPTURE_SUFFIX)]] = final
                run_id = final.name[: -len(CAPTURE_SUFFIX)]
                summary = self._runs.get(run_id)
                if summary is not None:
                    summary.status = "truncated"
                    summary.error = summary.error or "The program stopped while this run streamed."
                    # The index was last written as the run began: what the file kept is the truth.
                    with contextlib.suppress(JournalError):
                        kept = read_journal(final)
                        summary.bytes = sum(len(d) for _t, d in kept.chunks)
                        if kept.chunks:
                            summary.duration = round(kept.chunks[-1][0], 3)
                self.messages.append(f"A run cut short by a crash was recovered ({run_id}).")
                changed = True
        for run_id in list(self._runs):
            if run_id not in on_disk:
                del self._runs[run_id]
                changed = True
        for run_id, path in on_disk.items():
            if run_id in self._runs:
                continue
            try:
                journal = read_journal(path)
            except JournalError as exc:
                aside = set_aside(path)
                self.messages.append(f"{exc}; it was set aside as {aside.name}.")
                changed = True
                continue
            self._runs[run_id] = self._summary_from(run_id, journal)
            changed = True
        return changed

    @staticmethod
    def _summary_from(run_id: str, journal: Capture) -> RunSummary:
        request = journal.request or {}
        body = request.get("body")
        end = journal.end or {}
        return RunSummary(
            run_id,
            journal.route or "auto",
            journal.started_at or "",
            status=end.get("status") or ("truncated" if journal.end is None else None),
            http_status=journal.response_status,
            model=str(body.get("model") or "") if isinstance(body, dict) else "",
            prompt=_last_prompt(journal.route or "", body) if isinstance(body, dict) else "",
            url=str(request.get("url") or ""),
            duration=end.get("end"),
            bytes=sum(len(d) for _t, d in journal.chunks),
        )
