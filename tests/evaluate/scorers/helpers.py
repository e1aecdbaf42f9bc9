"""Score one check against a made-up finished run."""

from __future__ import annotations

from typing import Any

from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers import SCORERS, CheckResult, check_problem


def score(check: dict[str, Any], run: RunOutcome, **values: Any) -> CheckResult:
    assert check_problem(check) is None, check_problem(check)
    found = SCORERS[check["type"]]
    assert found.score is not None
    return found.score(check, run, values)


def answer(text: str = "", **fields: Any) -> RunOutcome:
    return RunOutcome(status=fields.pop("status", "complete"), text=text, **fields)
