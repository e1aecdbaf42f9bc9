"""Structured scorers: json_valid, json_schema, json_path (a field equals), tool_called."""

from __future__ import annotations

import re
from typing import Any, Final

from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers.registry import CheckResult, Values, scorer
from playground.evaluate.variables import fill
from playground.protocol import safe_json

__all__ = ["answer_json", "json_path_get"]

_FENCE: Final = re.compile(r"^```[\w-]*\s*\n(.*)\n```\s*$", re.DOTALL)
_STEP: Final = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\[['\"]([^'\"]*)['\"]\]")
_MISSING: Final = object()


def answer_json(text: str) -> tuple[bool, Any]:
    """The answer as JSON (a single fenced block's content too, as models often write it)."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    try:
        return True, safe_json.loads(stripped)
    except ValueError:
        return False, None


def json_path_get(document: Any, path: str) -> Any:
    """The value at a JSONPath of plain steps (``$.a.b[0]['c d']``), else ``_MISSING``."""
    rest = path.strip()
    if rest.startswith("$"):
        rest = rest[1:]
    value = document
    pos = 0
    while pos < len(rest):
        step = _STEP.match(rest, pos)
        if step is None:
            raise ValueError(f"not a JSON path step at {rest[pos:]!r}")
        pos = step.end()
        key, index, quoted = step.groups()
        if index is not None:
            if not isinstance(value, list) or int(index) >= len(value):
                return _MISSING
            value = value[int(index)]
        else:
            name = key if key is not None else quoted
            if not isinstance(value, dict) or name not in value:
                return _MISSING
            value = value[name]
    return value


@scorer("json_valid", {}, "the answer is one JSON document (a fenced block's content counts)")
def json_valid(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    ok, _doc = answer_json(run.text)
    return CheckResult("json_valid", ok, ok, "" if ok else "not JSON")


def _schema_errors(schema: dict[str, Any], document: Any) -> list[str]:
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"the check's schema is not valid ({exc.message})"]
    validator = validator_class(schema)
    out = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        out.append(f"${place}: {error.message}")
    return out


@scorer(
    "json_schema",
    {"schema": {"type": "object"}},
    "the answer is JSON valid against the schema (jsonschema, any draft)",
    required=("schema",),
)
def json_schema(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    ok, document = answer_json(run.text)
    if not ok:
        return CheckResult("json_schema", False, None, "not JSON")
    errors = _schema_errors(check["schema"], document)
    return CheckResult("json_schema", not errors, len(errors), errors[0][:200] if errors else "")


@scorer(
    "json_path",
    {"path": {"type": "string"}, "equals": {}},
    "the answer's JSON has ``equals`` at ``path`` ($.a.b[0]); text values take variables",
    required=("path", "equals"),
)
def json_path(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    ok, document = answer_json(run.text)
    if not ok:
        return CheckResult("json_path", False, None, "not JSON")
    try:
        found = json_path_get(document, str(check["path"]))
    except ValueError as exc:
        return CheckResult("json_path", False, None, str(exc))
    if found is _MISSING:
        return CheckResult("json_path", False, None, f"nothing at {check['path']}")
    wanted = check["equals"]
    if isinstance(wanted, str):
        wanted = fill(wanted, values)
    same = bool(found == wanted)
    return CheckResult("json_path", same, found, "" if same else f"found {found!r}"[:200])


@scorer(
    "tool_called",
    {
        "name": {"type": "string"},
        "arguments": {"type": "object"},
        "schema": {"type": "object"},
    },
    "a tool call named ``name`` came, its arguments holding ``arguments`` and valid against "
    "``schema``",
    required=("name",),
)
def tool_called(check: dict[str, Any], run: RunOutcome, values: Values) -> CheckResult:
    name = fill(str(check["name"]), values)
    calls = [c for c in run.tool_calls if c.name == name]
    called = [c.name for c in run.tool_calls]
    if not calls:
        return CheckResult("tool_called", False, called, f"no call to {name}")
    problems: list[str] = []
    for call in calls:
        try:
            arguments = safe_json.loads(call.arguments)
        except ValueError:
            problems.append("arguments are not JSON")
            continue
        wanted = check.get("arguments") or {}
        differing = [
            k
            for k, v in wanted.items()
            if not isinstance(arguments, dict)
            or arguments.get(k, _MISSING) != (fill(v, values) if isinstance(v, str) else v)
        ]
        if differing:
            problems.append(f"arguments differ at {', '.join(differing)}")
            continue
        schema = check.get("schema")
        errors = _schema_errors(schema, arguments) if isinstance(schema, dict) else []
        if errors:
            problems.append(errors[0])
            continue
        return CheckResult("tool_called", True, called)
    return CheckResult("tool_called", False, called, problems[0][:200])
