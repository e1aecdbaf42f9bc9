"""Text scorers: contains, not_contains, equals and regex on the answer's text.

Each compares against its ``value`` (a literal, variables allowed) or, without one, the case's
``expected``; ``ignore_case`` and ``normalize_whitespace`` (runs of whitespace as one space, ends
trimmed) apply to both sides.
"""

from __future__ import annotations

import re
from typing import Any, Final

from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers.registry import CheckResult, Values, scorer
from playground.evaluate.variables import fill

__all__ = ["target_text"]

_OPTIONS: Final[dict[str, Any]] = {
    "ignore_case": {"type": "boolean"},
    "normalize_whitespace": {"type": "boolean"},
}
_VALUE: Final[dict[str, Any]] = {"value": {"type": "string"}, **_OPTIONS}
_SPACES: Final = re.compile(r"\s+")


def target_text(check: dict[str, Any], values: Values) -> str | None:
    """What to compare with: the check's value filled with the case's variables, else expected."""
    value = check.get("value")
    if isinstance(value, str):
        return fill(value, values)
    expected = values.get("expected")
    return expected if isinstance(expected, str) else None


def _norm(text: str, check: dict[str, Any]) -> str:
    if check.get("normalize_whitespace"):
        text = _SPACES.sub(" ", text).strip()
    if check.get("ignore_case"):
        text = text.casefold()
    return text


def _no_target(kind: str) -> CheckResult:
    return CheckResult(kind, False, None, "no value and no expected text to compare with")


@scorer("contains", _VALUE, "the answer contains the value (or the expected text)")
def contains(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    target = target_text(check, values)
    if target is None:
        return _no_target("contains")
    found = _norm(target, check) in _norm(run.text, check)
    return CheckResult("contains", found, found, "" if found else f"{target[:80]!r} not found")


@scorer("not_contains", _VALUE, "the answer does not contain the value (or the expected text)")
def not_contains(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    target = target_text(check, values)
    if target is None:
        return _no_target("not_contains")
    found = _norm(target, check) in _norm(run.text, check)
    return CheckResult("not_contains", not found, found, f"{target[:80]!r} found" if found else "")


@scorer("equals", _VALUE, "the answer is exactly the value (or the expected text)")
def equals(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    target = target_text(check, values)
    if target is None:
        return _no_target("equals")
    same = _norm(target, check) == _norm(run.text, check)
    return CheckResult("equals", same, same, "" if same else "the answer differs")


@scorer(
    "regex",
    {"pattern": {"type": "string"}, **_OPTIONS},
    "the answer matches the pattern (Python re, searched anywhere; variables filled)",
    required=("pattern",),
)
def regex(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    pattern = fill(str(check["pattern"]), values)
    flags = re.IGNORECASE if check.get("ignore_case") else 0
    try:
        compiled = re.compile(pattern, flags)
    except re.error as exc:
        return CheckResult("regex", False, None, f"not a valid pattern ({exc})")
    text = _SPACES.sub(" ", run.text).strip() if check.get("normalize_whitespace") else run.text
    match = compiled.search(text)
    if match is None:
        return CheckResult("regex", False, None, "no match")
    return CheckResult("regex", True, match.group(0)[:200])
