"""Scorers: each check on a finished cell gives pass/fail and a value (``registry.SCORERS``).

``check_problem`` says what is wrong with a check as a suite gives it; ``score_cell`` runs every
check of a cell; a run that did not complete fails whatever its checks say.
"""

from __future__ import annotations

from typing import Any

from playground.evaluate.scorers import judge, stream, structured, text  # noqa: F401 (they register)
from playground.evaluate.scorers.registry import SCORERS, CheckResult, Scorer, Values, scorer

__all__ = [
    "SCORERS",
    "CheckResult",
    "Scorer",
    "Values",
    "check_problem",
    "completion_check",
    "scorer",
]


def check_problem(check: Any) -> str | None:
    """What is wrong with ``check`` (a suffix for its place: ``.type: ...``), or None."""
    if not isinstance(check, dict):
        return ": a check is an object with a type"
    kind = check.get("type")
    found = SCORERS.get(kind) if isinstance(kind, str) else None
    if found is None:
        return f".type: {kind!r} is not a scorer ({', '.join(sorted(SCORERS))})"
    import jsonschema

    schema = {
        "type": "object",
        "properties": {"type": {"type": "string"}, **found.params},
        "required": list(found.required),
        "additionalProperties": False,
    }
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(check), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    error = errors[0]
    place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{place} ({kind}): {error.message}"


def completion_check(status: str, error: str | None) -> CheckResult:
    """The check every cell has first: its run completed (else the cell fails whatever else)."""
    from playground.evaluate.outcome import COMPLETED

    return CheckResult(
        "completed", status in COMPLETED, status, "" if status in COMPLETED else (error or status)
    )
