"""The one scorer registry: each scorer's name, function, parameter schema and one-line meaning.

A scorer module declares each scorer with ``@scorer(name, params, summary)``; the suite checks a
check's parameters against ``params`` (a JSON Schema of the check object), so a new scorer is one
function in one place. docs/evaluate.md lists them all (tests/evaluate keeps the two in step).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from playground.evaluate.outcome import RunOutcome

__all__ = ["SCORERS", "CheckResult", "Scorer", "Values", "scorer"]

Values = Mapping[str, Any]  # the case's variables (and ``expected``)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check on one cell: passed or not, the value it measured, and why, in a few words."""

    type: str
    passed: bool
    value: Any = None
    detail: str = ""
    capture: str | None = None  # a run of the check's own (the judge's), linked from the cell

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "pass": self.passed, "value": self.value}
        if self.detail:
            out["detail"] = self.detail
        if self.capture:
            out["capture"] = self.capture
        return out


SyncScore = Callable[[dict[str, Any], RunOutcome, Values], CheckResult]
# The judge's request is sent by the runner: it hands the scorer a function that runs one.
AsyncScore = Callable[[dict[str, Any], RunOutcome, Values, Any], Awaitable[CheckResult]]


@dataclass(frozen=True)
class Scorer:
    name: str
    params: dict[str, Any]  # JSON Schema of the check's own keys (besides "type")
    summary: str
    score: SyncScore | None = None
    score_async: AsyncScore | None = None
    required: tuple[str, ...] = field(default=())


SCORERS: Final[dict[str, Scorer]] = {}


def scorer(
    name: str, params: dict[str, Any], summary: str, *, required: tuple[str, ...] = ()
) -> Callable[[Any], Any]:
    """Declare a scorer: a sync ``(check, outcome, values) -> CheckResult`` or an async one."""

    def register(fn: Any) -> Any:
        import inspect

        if name in SCORERS:
            raise ValueError(f"scorer {name!r} declared twice")
        is_async = inspect.iscoroutinefunction(fn)
        SCORERS[name] = Scorer(
            name,
            params,
            summary,
            None if is_async else fn,
            fn if is_async else None,
            required,
        )
        return fn

    return register
