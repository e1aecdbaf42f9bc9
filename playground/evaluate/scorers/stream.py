"""Stream scorers: what the stream itself did, from the run's state, findings and timing
(``protocol/timing.py``, the figures the window's timing dock shows)."""

from __future__ import annotations

from typing import Any, Final

from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers.registry import CheckResult, Values, scorer

__all__: list[str] = []

_NUMBER: Final = {"type": "number", "minimum": 0}
_SEVERITY_RANK: Final = {"info": 0, "warning": 1, "error": 2}


def _at_most(kind: str, value: float | None, limit: float, unit: str) -> CheckResult:
    if value is None:
        return CheckResult(kind, False, None, "not measured (nothing came)")
    ok = value <= limit
    return CheckResult(kind, ok, value, "" if ok else f"{value:g} {unit} > {limit:g}")


@scorer(
    "ttft_ms",
    {"max": _NUMBER},
    "time to first token (any kind) is at most max ms",
    required=("max",),
)
def ttft_ms(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    return _at_most("ttft_ms", run.ttft_ms, float(check["max"]), "ms")


@scorer(
    "first_thinking_ms",
    {"max": _NUMBER},
    "time to the first thinking token is at most max ms",
    required=("max",),
)
def first_thinking_ms(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    return _at_most("first_thinking_ms", run.thinking_ms, float(check["max"]), "ms")


@scorer(
    "max_gap_ms",
    {"max": _NUMBER},
    "the longest gap between two events is at most max ms",
    required=("max",),
)
def max_gap_ms(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    gap = run.max_gap_ms if run.max_gap_ms is not None else (0.0 if run.completed else None)
    return _at_most("max_gap_ms", gap, float(check["max"]), "ms")


@scorer(
    "tokens_per_s",
    {"min": _NUMBER},
    "output tokens per second after the first token is at least min",
    required=("min",),
)
def tokens_per_s(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    rate = run.tokens_per_s
    if rate is None:
        return CheckResult("tokens_per_s", False, None, "not measured (fewer than two tokens)")
    ok = rate >= float(check["min"])
    return CheckResult("tokens_per_s", ok, rate, "" if ok else f"{rate:g} < {check['min']:g}")


@scorer(
    "no_findings",
    {
        "severity": {"enum": ["info", "warning", "error"]},
        "codes": {"type": "array", "items": {"type": "string"}},
    },
    "no finding of severity >= severity (default warning); with codes, none of those codes",
)
def no_findings(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    codes = check.get("codes")
    if codes:
        hits = [code for _sev, code, _msg in run.findings if code in codes]
    else:
        floor = _SEVERITY_RANK[check.get("severity", "warning")]
        hits = [code for sev, code, _msg in run.findings if _SEVERITY_RANK.get(sev, 2) >= floor]
    return CheckResult("no_findings", not hits, hits, ", ".join(dict.fromkeys(hits))[:200])


@scorer(
    "finish_reason",
    {"value": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}},
    "the finish reason (stop, length, tool_calls, end_turn, ...) is value (or one of them)",
    required=("value",),
)
def finish_reason(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    wanted = check["value"]
    allowed = [wanted] if isinstance(wanted, str) else list(wanted)
    ok = run.finish in allowed
    return CheckResult("finish_reason", ok, run.finish, "" if ok else f"finished {run.finish!r}")


@scorer("usage_reported", {}, "the stream reported token usage")
def usage_reported(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    ok = bool(run.usage)
    return CheckResult("usage_reported", ok, dict(run.usage) or None, "" if ok else "no usage")


@scorer(
    "partial_images",
    {"min": {"type": "integer", "minimum": 0}},
    "at least min partial images came",
    required=("min",),
)
def partial_images(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    ok = run.partial_images >= int(check["min"])
    return CheckResult("partial_images", ok, run.partial_images, "" if ok else "too few")


@scorer("tool_args_valid", {}, "every tool call's arguments are valid JSON once the call closed")
def tool_args_valid(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    closed = [c for c in run.tool_calls if c.closed or run.completed]
    bad = [c.name for c in closed if not c.valid_json]
    return CheckResult(
        "tool_args_valid",
        not bad,
        len(closed) - len(bad),
        f"invalid: {', '.join(bad)}" if bad else "",
    )
