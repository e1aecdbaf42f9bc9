"""The LLM judge: a prompt with ``{{output}}``, ``{{expected}}`` and the case's variables, sent to
a chosen route and model with a structured-output schema for its score; its run is a capture of
its own, linked from the check."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from playground.evaluate.model import Case, Variant
from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers.registry import CheckResult, Values, scorer
from playground.evaluate.variables import fill

__all__ = ["DEFAULT_SCHEMA", "JudgeSend", "judge_request"]

# What the judge must answer: a score from 0 to 1 and a reason (strict, as OpenAI requires).
DEFAULT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}

# Runs the judge's request; returns its outcome and its capture's path.
JudgeSend = Callable[[Variant, Case], Awaitable[tuple[RunOutcome, str | None]]]


def judge_request(check: dict[str, Any], run: RunOutcome, values: Values) -> tuple[Variant, Case]:
    """The judge's request as a one-case variant: the prompt filled, the score's schema asked."""
    filled = fill(str(check["prompt"]), {**values, "output": run.text})
    variant = Variant(
        name="judge",
        route=str(check.get("route", "chat")),
        model=str(check.get("model", "")),
        system=check.get("system"),
        prompt=filled,
        params={"temperature": 0} | dict(check.get("params") or {}),
        response_format={
            "type": "json_schema",
            "json_schema": {
                "name": "judgement",
                "schema": check.get("schema") or DEFAULT_SCHEMA,
                "strict": True,
            },
        },
        provider=check.get("provider"),
    )
    return variant, Case(id="judge")


@scorer(
    "llm_judge",
    {
        "prompt": {"type": "string"},
        "model": {"type": "string"},
        "route": {"enum": ["chat", "responses", "messages"]},
        "provider": {"type": ["string", "null"]},
        "system": {"type": "string"},
        "params": {"type": "object"},
        "schema": {"type": "object"},
        "score_path": {"type": "string"},
        "min_score": {"type": "number"},
    },
    "a model grades the answer: prompt with {{output}}, {{expected}} and the case's variables; "
    "passes when the score (at score_path, default score) is at least min_score (default 0.5)",
    required=("prompt",),
)
async def llm_judge(
    check: dict[str, Any], run: RunOutcome, values: Values, send: JudgeSend
) -> CheckResult:
    from playground.evaluate.scorers.structured import answer_json, json_path_get

    variant, case = judge_request(check, run, values)
    verdict, capture = await send(variant, case)
    link = f"judge run: {capture}" if capture else "judge run not saved"
    if not verdict.completed:
        return CheckResult(
            "llm_judge", False, None, f"the judge's run {verdict.status}; {link}", capture
        )
    ok, document = answer_json(verdict.text)
    score = json_path_get(document, str(check.get("score_path", "$.score"))) if ok else None
    if isinstance(score, bool) or not isinstance(score, int | float):
        return CheckResult(
            "llm_judge", False, None, f"no numeric score in the judge's answer; {link}", capture
        )
    passed = float(score) >= float(check.get("min_score", 0.5))
    return CheckResult("llm_judge", passed, score, link, capture)
