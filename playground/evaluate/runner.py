"""The grid runner: every cell (case × variant × repeat) sent, decoded, journaled and scored.

Requests go through one queue per provider (``queues.py``: a concurrency limit, paused when a
429 or 503 asks). ``cancel`` stops every stream at once; a cell is scored only when its run (and
its judge's) has ended, and its checks are set in one assignment, so a stopped grid holds
finished cells and cancelled ones, never a half-scored one. ``progress`` is called after every
change with done, failed, remaining and an estimate of the time left (the window and the CLI
both show it).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx

from playground.evaluate.accounts import CellAccounts
from playground.evaluate.cell_run import Attempt, send_once
from playground.evaluate.outcome import RunOutcome
from playground.evaluate.queues import ProviderQueue, backoff_seconds
from playground.evaluate.requests import cell_body, cell_spec
from playground.evaluate.scorers import SCORERS, CheckResult, completion_check
from playground.evaluate.suite import Case, Suite, Variant
from playground.protocol.accounting.prices import PriceTable
from playground.protocol.stream import StreamDecoder

__all__ = ["OUTPUT_KEEP", "RETRY_STATUSES", "Cell", "Progress", "Runner", "Sender"]

# How a cell's request is sent: ``cell_run.send_once`` (on the loop's thread; the default) or
# ``cell_thread.send_on_reader_thread`` (read and decoded on a thread; the window's grid).
Sender = Callable[..., Awaitable[Attempt]]

RETRY_STATUSES: Final = frozenset({429, 503})
OUTPUT_KEEP: Final = 16_384  # characters of each answer kept for the side-by-side (the rest is
# in the capture): a finished cell stays a few kilobytes whatever the model wrote
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(slots=True)
class Cell:
    """One cell of the grid and, once it ended, its verdict."""

    case: str
    variant: str
    repeat: int
    status: str = (
        "pending"  # pending | running | complete | incomplete | failed | truncated | cancelled
    )
    checks: list[CheckResult] = field(default_factory=list)
    passed: bool | None = None  # None until scored (or for a cancelled cell)
    output: str = ""
    figures: dict[str, Any] = field(default_factory=dict)
    capture: str | None = None
    requests: int = 0
    error: str | None = None
    cache: dict[str, Any] | None = None  # the prompt cache against the previous repeat
    cost: dict[str, Any] | None = None  # what the cell's request cost (None: a price unknown)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.case, self.variant, self.repeat)

    @property
    def finished(self) -> bool:
        return self.status not in ("pending", "running")

    def contract_json(self) -> dict[str, Any]:
        """The cell as ``--json`` writes it: exactly the keys docs/evaluate.md promises."""
        return {
            "case": self.case,
            "variant": self.variant,
            "repeat": self.repeat,
            "status": self.status,
            "checks": [{"type": c.type, "pass": c.passed, "value": c.value} for c in self.checks],
            "pass": bool(self.passed),
            "ttft_ms": self.figures.get("ttft_ms"),
            "output_tokens": self.figures.get("output_tokens"),
            "capture": self.capture,
            "cache": self.cache,
            "cost": self.cost,
        }

    def as_json(self) -> dict[str, Any]:
        """The cell as the experiment file keeps it: the contract's keys and what a comparison
        and the grid show (time, rate, requests, error, the answer's first 16 KiB, each check's
        detail and linked run)."""
        return {
            "case": self.case,
            "variant": self.variant,
            "repeat": self.repeat,
            "status": self.status,
            "checks": [c.as_json() for c in self.checks],
            "pass": bool(self.passed),
            "ttft_ms": self.figures.get("ttft_ms"),
            "output_tokens": self.figures.get("output_tokens"),
            "duration_ms": self.figures.get("duration_ms"),
            "tokens_per_s": self.figures.get("tokens_per_s"),
            "capture": self.capture,
            "cache": self.cache,
            "cost": self.cost,
            "requests": self.requests,
            "error": self.error,
            "output": self.output,
        }


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    failed: int
    remaining: int
    running: int
    requests: int
    eta_s: float | None  # None until a cell has finished
    paused: dict[str, float]  # provider id -> seconds its queue stays paused


class Runner:
    """Runs a suite's grid once; ``cells`` shows every cell's state while it runs."""

    def __init__(
        self,
        suite: Suite,
        *,
        base_urls: Mapping[str, str],
        variants: list[str] | None = None,
        repeat: int | None = None,
        concurrency: int | None = None,
        capture_dir: Path | None = None,
        progress: Callable[[Progress], None] | None = None,
        keys: Mapping[str, str | None] | None = None,
        backoff_base: float = 1.0,
        only: Iterable[tuple[str, str, int]] | None = None,
        prices: PriceTable | None = None,
        sender: Sender | None = None,
    ) -> None:
        """``only``: the (case, variant, repeat) cells to run (a row, a column, the failed
        ones again); by default every cell. ``prices``: the price table (by default the data
        folder's price file) for the models the providers' lists do not price. ``sender``:
        how each request goes (``Sender``)."""
        self.sender: Sender = sender or send_once
        if prices is None:
            from playground.runs.prices import load_prices

            prices = load_prices().table
        self.accounts = CellAccounts(prices)
        self.suite = suite
        self.variants: list[Variant] = (
            [suite.variant(n) for n in variants] if variants else list(suite.variants)
        )
        self.repeat = repeat or suite.repeat
        self.concurrency = concurrency or suite.concurrency
        self.base_urls = dict(base_urls)
        self.capture_dir = capture_dir
        self.progress = progress
        self.keys = dict(keys) if keys is not None else None
        self.backoff_base = backoff_base
        self.cases: dict[str, Case] = {c.id: c for c in suite.cases}
        chosen = set(only) if only is not None else None
        self.cells: list[Cell] = [
            Cell(case.id, variant.name, r)
            for case in suite.cases
            for variant in self.variants
            for r in range(1, self.repeat + 1)
            if chosen is None or (case.id, variant.name, r) in chosen
        ]
        self.queues: dict[str, ProviderQueue] = {}
        self.requests = 0
        self.retries = 0
        # (kind, provider, label, detail) in the order things happened: a send and its monotonic
        # time, its HTTP status, a pause and the monotonic time it ends.
        self.log: list[tuple[str, str, str, Any]] = []
        self.cancelled = False
        # The decoder of each cell's stream while it runs (the window shows its text growing);
        # a cell's entry goes when the cell ends.
        self.live: dict[tuple[str, str, int], StreamDecoder] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._started = 0.0
        self._client: httpx.AsyncClient | None = None

    # -- control ---------------------------------------------------------------------------------
    async def run(self) -> list[Cell]:
        """Run every cell (each at most once); returns the cells, finished or cancelled."""
        from playground.transport.client import make_client

        self._started = time.monotonic()
        self._client = make_client()  # its pool (100 connections) is above any suite's limit
        try:
            self._tasks = [asyncio.ensure_future(self._run_cell(cell)) for cell in self.cells]
            if self.cancelled:
                for task in self._tasks:
                    task.cancel()
            try:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            except asyncio.CancelledError:  # the run itself was cancelled (Ctrl+C, a closed window)
                self.cancel()
                await asyncio.gather(*self._tasks, return_exceptions=True)
                raise
        finally:
            await self._client.aclose()
            self._client = None
            for cell in self.cells:  # a task cancelled before it began never set its status
                if not cell.finished:
                    self._mark_cancelled(cell)
            self._report()
        return self.cells

    def cancel(self) -> None:
        """Stop every stream now; cells not finished become "cancelled"."""
        self.cancelled = True
        for task in self._tasks:
            task.cancel()

    # -- one cell --------------------------------------------------------------------------------
    async def _run_cell(self, cell: Cell) -> None:
        variant = self.suite.variant(cell.variant)
        case = self.cases[cell.case]
        try:
            capture = self._capture_path(cell, "")
            outcome, capture_text = await self._send(variant, case, capture, cell)
            checks = await self._score(cell, outcome, case)
            accounted = self.accounts.account(
                f"{cell.case}\x1f{cell.variant}", variant.route, outcome
            )
        except asyncio.CancelledError:
            self._mark_cancelled(cell)
            self._report()
            return
        except ValueError as exc:  # a request that cannot be made (a provider without its URL)
            self.live.pop(cell.key, None)
            cell.status, cell.error = "failed", str(exc)
            cell.checks, cell.passed = [completion_check("failed", str(exc))], False
            self._report()
            return
        # One assignment after every await: Stop can never leave a cell half-scored.
        cell.capture = capture_text
        cell.status = outcome.status
        cell.output = outcome.text[:OUTPUT_KEEP]
        cell.figures = outcome.figures()
        cell.error = outcome.error
        cell.checks = checks
        cell.passed = all(c.passed for c in checks)
        cell.cache, cell.cost = accounted["cache"], accounted["cost"]
        self.live.pop(cell.key, None)
        self._report()

    def _mark_cancelled(self, cell: Cell) -> None:
        cell.status = "cancelled"
        cell.checks = []
        cell.passed = False
        cell.error = "stopped before it was scored"
        self.live.pop(cell.key, None)

    async def _score(self, cell: Cell, outcome: RunOutcome, case: Case) -> list[CheckResult]:
        values = case.values()
        results: list[CheckResult] = []
        if not outcome.completed:
            results.append(completion_check(outcome.status, outcome.error))
        for i, check in enumerate(self.suite.checks_for(case)):
            found = SCORERS[check["type"]]
            if found.score is not None:
                results.append(found.score(check, outcome, values))
            elif found.score_async is not None:
                if not outcome.completed:
                    results.append(
                        CheckResult(check["type"], False, None, "the run did not complete")
                    )
                    continue

                async def judge_send(
                    judge: Variant, judge_case: Case, n: int = i
                ) -> tuple[RunOutcome, str | None]:
                    path = self._capture_path(cell, f"--judge{n}")
                    return await self._send(judge, judge_case, path, cell)

                results.append(await found.score_async(check, outcome, values, judge_send))
        return results

    async def _send(
        self, variant: Variant, case: Case, capture: Path | None, cell: Cell
    ) -> tuple[RunOutcome, str | None]:
        """One request with its resends: a 429 or 503 pauses the provider's queue and resends
        after the pause, at most ``suite.retries`` times."""
        provider_id = variant.provider_id
        queue = self._queue(provider_id)
        body = cell_body(variant, case)
        spec = cell_spec(
            variant,
            case,
            base_url=self.base_urls.get(provider_id),
            key=self._key(provider_id),
            pace=self.suite.pace if provider_id == "simulator" else None,
            body=body,
        )
        own = variant is self._own(cell)
        label = f"{cell.case}/{cell.variant}/{cell.repeat}" + ("" if own else "/judge")
        attempt_no = 0
        while True:
            attempt_no += 1
            await queue.acquire()
            try:
                self.requests += 1
                cell.requests += 1
                cell.status = "running"
                if own and capture is not None:  # linked as soon as it is written, Stop or not
                    cell.capture = str(capture)
                self.log.append(("send", provider_id, label, time.monotonic()))
                self._report()
                if own:  # the cell's cache and cost read what its provider's models list says
                    await self.accounts.models_for(self._client_now(), spec)
                sent_at = time.monotonic()
                attempt: Attempt = await self.sender(
                    spec,
                    body,
                    capture,
                    self._client_now(),
                    on_decoder=(lambda d: self.live.__setitem__(cell.key, d)) if own else None,
                )
                attempt.outcome.sent_at, attempt.outcome.body = sent_at, body
                self.log.append(("status", provider_id, label, attempt.http_status))
                resend = attempt.http_status in RETRY_STATUSES and attempt_no <= self.suite.retries
                if resend:  # paused before the slot is free: no request slips in between
                    from playground.runs.outcome import retry_seconds

                    self.retries += 1
                    queue.pause(
                        backoff_seconds(
                            retry_seconds(attempt.retry_after), attempt_no, self.backoff_base
                        )
                    )
            finally:
                queue.release()
            if not resend:
                return attempt.outcome, str(capture) if capture is not None else None
            self._report()

    # -- helpers ---------------------------------------------------------------------------------
    def _own(self, cell: Cell) -> Variant:
        return self.suite.variant(cell.variant)

    def _client_now(self) -> httpx.AsyncClient:
        assert self._client is not None
        return self._client

    def _queue(self, provider_id: str) -> ProviderQueue:
        found = self.queues.get(provider_id)
        if found is None:
            found = self.queues[provider_id] = ProviderQueue(
                provider_id, self.concurrency, on_pause=self._on_pause
            )
        return found

    def _on_pause(self, provider_id: str, seconds: float) -> None:
        # The pause's end on the clock the sends are logged with (the order is what tests read).
        self.log.append(("pause", provider_id, "", self.queues[provider_id].paused_until))

    def _key(self, provider_id: str) -> str | None:
        if provider_id == "simulator":
            return None
        if self.keys is not None:
            return self.keys.get(provider_id)
        from playground.transport.providers import provider_by_id
        from playground.transport.secrets import get_key

        return get_key(provider_by_id(provider_id))

    def _capture_path(self, cell: Cell, suffix: str) -> Path | None:
        if self.capture_dir is None:
            return None
        name = f"{_UNSAFE.sub('_', cell.case)}--{_UNSAFE.sub('_', cell.variant)}--r{cell.repeat}"
        return self.capture_dir / f"{name}{suffix}.capture.jsonl"

    def snapshot(self) -> Progress:
        done = sum(1 for c in self.cells if c.finished)
        failed = sum(1 for c in self.cells if c.finished and not c.passed)
        running = sum(1 for c in self.cells if c.status == "running")
        remaining = len(self.cells) - done
        elapsed = time.monotonic() - self._started
        eta = elapsed / done * remaining if done and not self.cancelled else None
        paused = {p: q.paused_for() for p, q in self.queues.items() if q.paused_for() > 0}
        return Progress(done, failed, remaining, running, self.requests, eta, paused)

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.snapshot())
