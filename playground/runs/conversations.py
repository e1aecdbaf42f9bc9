"""Conversations kept on disk: one atomic JSON file each; list, load, rename, delete, search.

Layout under the data folder: ``conversations/<id>.conversation.json``, each holding the
conversation's title (its first user prompt until renamed), route, model, system text, every
turn in the route-neutral model (protocol/conversation/stored.py), the runs it made with their
captures, its created and updated times, and its branches if it has any (branches.py). A file
that cannot be read is set aside as ``*.corrupt`` with a message in
``ConversationStore.messages``: the others stay listed.
Given a background ``FileWriter`` (runs/writer.py), each file is encoded and written on its
thread; reading waits for what is queued first.
"""

from __future__ import annotations

import json
import re
import secrets as _random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from playground.protocol import safe_json
from playground.protocol.conversation.branches import BranchTree, tree_from_json, tree_to_json
from playground.protocol.conversation.model import Conversation
from playground.protocol.conversation.stored import (
    conversation_from_json,
    conversation_to_json,
    searchable_text,
)
from playground.protocol.redaction import scrub
from playground.runs.atomic import write_json_atomically
from playground.runs.paths import data_dir
from playground.runs.set_aside import set_aside
from playground.runs.writer import FileWriter

__all__ = [
    "ConversationError",
    "ConversationStore",
    "ConversationSummary",
    "KeptRun",
    "SavedConversation",
    "title_of",
]

FILE_FORMAT = "playground-conversation/1"
SUFFIX = ".conversation.json"
TITLE_CHARS = 80
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,80}")


class ConversationError(RuntimeError):
    """A conversation that cannot be opened; the message says which and why, in one sentence."""


@dataclass(frozen=True)
class KeptRun:
    """One run the conversation made: its history id and its capture file."""

    id: str
    capture: str
    status: str | None = None


@dataclass
class SavedConversation:
    """A conversation as kept: what its panel needs to show it again and to continue it."""

    id: str
    route: str
    conversation: Conversation
    model: str = ""
    title: str = ""
    renamed: bool = False  # a title the user gave: the first prompt no longer replaces it
    runs: list[KeptRun] = field(default_factory=list)
    created: str = ""
    updated: str = ""
    # Its branches (an earlier question edited, an answer regenerated), their current path the
    # conversation's turns; None: it has none. Kept under an optional "branches" key.
    branches: BranchTree | None = None

    @property
    def turns(self) -> int:
        return len(self.conversation.turns)


@dataclass(frozen=True)
class ConversationSummary:
    """One row of the list: what ``playground conversations list`` prints."""

    id: str
    title: str
    route: str
    model: str
    turns: int
    updated: str
    created: str = ""
    runs: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "route": self.route,
            "model": self.model,
            "turns": self.turns,
            "updated": self.updated,
        }


def title_of(conversation: Conversation) -> str:
    """The first user prompt, on one line and at most TITLE_CHARS long ("Untitled" if none)."""
    for turn in conversation.turns:
        if turn.role == "user":
            text = " ".join(turn.text.split())
            if text:
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return "Untitled"


_last_stamp: list[datetime] = []  # the last time _now gave, so two saves never tie


def _now() -> str:
    """Now, to the microsecond, and always after the last time given: the list is ordered by
    it, and two saves in one clock tick (a coarse clock, a fast machine) would otherwise tie."""
    now = datetime.now(UTC)
    if _last_stamp and now <= _last_stamp[0]:
        now = _last_stamp[0] + timedelta(microseconds=1)
    _last_stamp[:] = [now]
    return now.isoformat(timespec="microseconds")


def _new_id() -> str:
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}-{_random.token_hex(3)}"


def _as_json(saved: SavedConversation) -> dict[str, Any]:
    data = _main_json(saved)
    if saved.branches is not None and saved.branches.forks:
        data["branches"] = tree_to_json(saved.branches)
    return data


def _main_json(saved: SavedConversation) -> dict[str, Any]:
    return {
        "format": FILE_FORMAT,
        "id": saved.id,
        "title": saved.title,
        "renamed": saved.renamed,
        "route": saved.route,
        "model": saved.model,
        "created": saved.created,
        "updated": saved.updated,
        "runs": [{"id": r.id, "capture": r.capture, "status": r.status} for r in saved.runs],
        "conversation": conversation_to_json(saved.conversation),
    }


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"its {key!r} is not text")
    return value


def _from_json(data: object) -> SavedConversation:
    """A kept conversation; ValueError (naming the first wrong field) for anything else."""
    if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
        raise ValueError("it is not a kept conversation")
    runs: list[KeptRun] = []
    raw_runs = data.get("runs", [])
    if not isinstance(raw_runs, list):
        raise ValueError("its runs are not a list")
    for run in raw_runs:
        if not isinstance(run, dict):
            raise ValueError("a run that is not an object")
        status = run.get("status")
        if status is not None and not isinstance(status, str):
            raise ValueError("a run whose status is not text")
        runs.append(KeptRun(_text(run, "id"), _text(run, "capture"), status))
    renamed = data.get("renamed", False)
    if not isinstance(renamed, bool):
        raise ValueError("its 'renamed' is not true or false")
    conversation = conversation_from_json(data.get("conversation"))
    # Tolerant, unlike the rest: damaged branches are dropped, the conversation still opens.
    branches = tree_from_json(data.get("branches"), conversation.turns)
    saved = SavedConversation(
        id=_text(data, "id"),
        route=_text(data, "route"),
        conversation=conversation,
        model=_text(data, "model"),
        title=_text(data, "title"),
        renamed=renamed,
        runs=runs,
        created=_text(data, "created"),
        updated=_text(data, "updated"),
        branches=branches if branches.forks else None,
    )
    if not _ID.fullmatch(saved.id) or not saved.route:
        raise ValueError("it has no id or no route")
    return saved


@dataclass
class _Cached:
    stamp: tuple[int, int] | None  # (mtime_ns, size): the file as read or written; None: queued
    summary: ConversationSummary
    # What the search reads, made when a search first asks (``text``): at each run's end a
    # save made it at once, ~3 ms of the run's last frame and a copy of the whole conversation
    # in memory (a 50-answer session, 0.9 MB). The turns are immutable: kept, not copied.
    conversation: Conversation | None
    secrets: tuple[str, ...] = ()
    searchable: str | None = None

    @property
    def text(self) -> str:
        """Every turn's text, lower-cased, the keys its file redacts redacted, for search."""
        if self.searchable is None:
            conversation = self.conversation or Conversation()
            self.searchable = scrub(searchable_text(conversation), *self.secrets)
            self.conversation = None
        return self.searchable


def _listed(saved: SavedConversation, secrets: tuple[str, ...]) -> _Cached:
    """``saved`` as the list shows and searches it, with the keys its file redacts redacted."""
    summary = ConversationSummary(
        saved.id,
        scrub(saved.title, *secrets),
        saved.route,
        saved.model,
        saved.turns,
        saved.updated,
        saved.created,
        len(saved.runs),
    )
    return _Cached(None, summary, saved.conversation, secrets)


class ConversationStore:
    """The conversations kept under ``root`` (default: ``<data dir>/conversations``)."""

    def __init__(self, root: Path | None = None, *, writer: FileWriter | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / "conversations"
        # Where the files are written: inline unless one is given (the window's runs' writer).
        self.writer = writer if writer is not None else FileWriter(threaded=False)
        self.messages: list[str] = []  # what was set aside or not saved, for the status bar
        self._cache: dict[str, _Cached] = {}
        # Saves still queued on the writer, by id: the list shows them as saved, without waiting
        # for the disk (each run's end saves, and the Conversations dock lists again at once).
        self._queued: dict[str, _Cached] = {}
        if self.root.exists() and not self.root.is_dir():  # a file where the folder belongs
            aside = set_aside(self.root)
            self.messages.append(
                f"A file stood where the conversations' folder belongs; "
                f"it was set aside as {aside.name}."
            )

    def path_of(self, conversation_id: str) -> Path:
        if not _ID.fullmatch(conversation_id):  # an id from the command line is never a path
            raise ConversationError(f"{conversation_id!r} is not a conversation id.")
        return self.root / f"{conversation_id}{SUFFIX}"

    # ---- writing ---------------------------------------------------------------------------
    def new(self, route: str, conversation: Conversation, *, model: str = "") -> SavedConversation:
        """A new conversation (not written until ``save``)."""
        now = _now()
        return SavedConversation(
            _new_id(), route, conversation, model, title_of(conversation), created=now, updated=now
        )

    def save(self, saved: SavedConversation, secrets: Sequence[str] = ()) -> None:
        """Write ``saved`` atomically, its title from its first prompt unless it was renamed and
        its ``updated`` now, every value of ``secrets`` (the keys its runs were sent with)
        redacted wherever it appears. Inline, OSError when the folder cannot be written; on a
        background writer, that becomes a message (a newer save of it queued before it starts
        wins)."""
        if not saved.renamed:
            saved.title = title_of(saved.conversation)
        saved.updated = _now()
        path = self.path_of(saved.id)
        # The turns are immutable: only the list of runs is copied for the writer's thread.
        snapshot = replace(saved, runs=list(saved.runs))
        keys = tuple(secrets)
        listed = _listed(snapshot, keys)
        if not self.writer.threaded:
            self._write(path, snapshot, keys, listed)
            return
        self._queued[saved.id] = listed

        def write() -> None:
            try:
                self._write(path, snapshot, keys, listed)
            except OSError as exc:
                if self._queued.get(snapshot.id) is listed:
                    del self._queued[snapshot.id]  # not written: the list reads the disk again
                message = (
                    f"The conversation “{snapshot.title}” could not be saved "
                    f"({exc.strerror or type(exc).__name__})."
                )
                if message not in self.messages:
                    self.messages.append(message)

        self.writer.submit(write, key=("conversation", path))

    def _write(
        self, path: Path, saved: SavedConversation, secrets: tuple[str, ...], listed: _Cached
    ) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        data = _as_json(saved)
        if secrets:
            # Scrubbed as JSON text: a key inside any turn, title or tool argument goes, and a
            # key holds no character JSON escapes, so the text still reads back as JSON.
            data = safe_json.loads(scrub(json.dumps(data, ensure_ascii=False), *secrets))
        write_json_atomically(path, data, prefix=".conversation-")
        # What was written is what the list shows: stamped, it is not read back again (the
        # writer's thread sets one key of each dict; the list copies them before it looks).
        stat = path.stat()
        self._cache[saved.id] = replace(listed, stamp=(stat.st_mtime_ns, stat.st_size))
        if self._queued.get(saved.id) is listed:
            del self._queued[saved.id]

    def rename(self, conversation_id: str, title: str) -> SavedConversation:
        saved = self.load(conversation_id)
        title = " ".join(title.split())
        saved.title, saved.renamed = (
            (title, True) if title else (title_of(saved.conversation), False)
        )
        self.save(saved)
        return saved

    def delete(self, conversation_id: str) -> None:
        """Forget the conversation (its runs stay in the history, where they were made)."""
        self.writer.flush()  # a save still queued would write it again
        self._cache.pop(conversation_id, None)
        self._queued.pop(conversation_id, None)
        self.path_of(conversation_id).unlink(missing_ok=True)

    # ---- reading ---------------------------------------------------------------------------
    def load(self, conversation_id: str) -> SavedConversation:
        path = self.path_of(conversation_id)
        self.writer.flush()  # what was saved just before is read whole
        if not path.is_file():
            raise ConversationError(f"There is no conversation {conversation_id}.")
        try:
            return self._read(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            self._set_aside(path, exc)
            raise ConversationError(
                f"The conversation {conversation_id} cannot be opened: {exc}."
            ) from None

    def list(self, query: str = "") -> list[ConversationSummary]:
        """Every conversation, the most recently updated first; with ``query``, those whose
        title or turns hold every one of its words (case-insensitive)."""
        words = query.casefold().split()
        queued = dict(self._queued)  # saves not written yet, as they will be
        entries: dict[str, _Cached] = {}
        paths = sorted(self.root.glob(f"*{SUFFIX}")) if self.root.is_dir() else []
        for path in paths:
            conversation_id = path.name[: -len(SUFFIX)]
            cached = queued.get(conversation_id) or self._cached(path, conversation_id)
            if cached is not None:
                entries[conversation_id] = cached
        for conversation_id, cached in queued.items():
            entries.setdefault(conversation_id, cached)  # a new one, its first write queued
        found = [
            c.summary
            for c in entries.values()
            if all(w in c.text + "\n" + c.summary.title.casefold() for w in words)
        ]
        for gone in set(self._cache) - set(entries):
            self._cache.pop(gone, None)
        return sorted(found, key=lambda s: (s.updated, s.id), reverse=True)

    def _cached(self, path: Path, conversation_id: str) -> _Cached | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(conversation_id)
        if cached is not None and cached.stamp == stamp:
            return cached
        try:
            saved = self._read(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            self._set_aside(path, exc)
            return None
        listed = _listed(saved, ())
        # Its search text now, while the file is read: the turns are not kept for it.
        cached = _Cached(stamp, listed.summary, None, searchable=listed.text)
        self._cache[conversation_id] = cached
        return cached

    def _read(self, path: Path) -> SavedConversation:
        name_id = path.name[: -len(SUFFIX)]
        if not _ID.fullmatch(name_id):
            raise ValueError("its file name is no conversation id")
        saved = _from_json(safe_json.loads(path.read_bytes()))
        return saved if saved.id == name_id else replace(saved, id=name_id)  # the name is the id

    def _set_aside(self, path: Path, exc: BaseException) -> None:
        try:
            aside = set_aside(path)
        except OSError:
            return
        self.messages.append(
            f"The conversation file {path.name} could not be read ({exc}); "
            f"it was set aside as {aside.name}."
        )
