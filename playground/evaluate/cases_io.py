"""Cases in and out: CSV and JSONL files, and cases made from recorded traffic (a history run's
or a proxy exchange's capture: the thread before the last user turn as the context, the last user
turn as ``input``, the answer as ``expected``).

CSV columns: ``id``, ``expected``, ``fault``, ``checks`` and ``messages`` (JSON text) are the
case's own; every other column is a variable. JSONL: one case object per line, as in a suite.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from playground.evaluate.suite import Case, SuiteError, parse_suite
from playground.protocol import safe_json
from playground.protocol.capture import Capture, read_capture
from playground.protocol.stream import StreamDecoder

__all__ = [
    "case_from_capture",
    "cases_from_csv",
    "cases_from_jsonl",
    "cases_to_csv",
    "cases_to_jsonl",
]

OWN_COLUMNS: Final = ("id", "expected", "fault", "checks", "messages")


def cases_to_csv(cases: Iterable[Case]) -> str:
    """The cases as CSV (RFC 4180 quoting: commas, quotes and newlines survive)."""
    rows = list(cases)
    names = list(dict.fromkeys(name for case in rows for name in case.vars))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*OWN_COLUMNS, *names])
    for case in rows:
        writer.writerow(
            [
                case.id,
                case.expected if case.expected is not None else "",
                case.fault or "",
                json.dumps(case.checks, ensure_ascii=False) if case.checks else "",
                json.dumps(case.messages, ensure_ascii=False) if case.messages else "",
                *(_cell(case.vars.get(name)) for name in names),
            ]
        )
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def cases_from_csv(text: str) -> list[Case]:
    """Cases from CSV with a header row; SuiteError names the row and column that is wrong."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return []
    if "id" not in header:
        raise SuiteError("CSV: the header needs an id column")
    raw: list[dict[str, Any]] = []
    for number, row in enumerate(reader, start=2):
        if not any(row):
            continue
        if len(row) != len(header):
            raise SuiteError(f"CSV row {number}: {len(row)} fields, the header has {len(header)}")
        values = dict(zip(header, row, strict=True))
        case: dict[str, Any] = {"id": values["id"], "vars": {}}
        for name, value in values.items():
            if name in ("checks", "messages"):
                if value:
                    try:
                        case[name] = safe_json.loads(value)
                    except ValueError:
                        raise SuiteError(f"CSV row {number}, {name}: not JSON") from None
            elif name == "expected":
                case["expected"] = value or None
            elif name == "fault":
                case["fault"] = value or None
            elif name != "id":
                case["vars"][name] = value
        raw.append(case)
    return _checked(raw)


def cases_to_jsonl(cases: Iterable[Case]) -> str:
    return "".join(json.dumps(c.as_json(), ensure_ascii=False) + "\n" for c in cases)


def cases_from_jsonl(text: str) -> list[Case]:
    raw = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw.append(safe_json.loads(line))
        except ValueError as exc:
            raise SuiteError(f"JSONL line {number}: not JSON ({exc})") from None
    return _checked(raw)


def _checked(raw: list[Any]) -> list[Case]:
    """The suite's own reader checks each case (ids, faults, checks) and names its place."""
    if not raw:
        return []
    try:
        suite = parse_suite({"variants": [{"name": "_", "prompt": ""}], "cases": raw})
    except SuiteError as exc:
        raise SuiteError(str(exc)) from None
    return suite.cases


# -- cases from traffic ---------------------------------------------------------------------------
def case_from_capture(source: Path | Capture, case_id: str) -> Case:
    """A case from a recorded run: the thread before the last user turn as its context, that
    turn as ``input``, the answer as ``expected``. SuiteError when the capture holds no user turn.
    """
    if isinstance(source, Capture):
        capture = source
    else:
        try:
            capture = read_capture(Path(source))
        except (OSError, ValueError) as exc:  # CaptureError is a ValueError
            raise SuiteError(f"{case_id}: the capture cannot be read ({exc})") from None
    request = capture.request or {}
    body = request.get("body")
    if isinstance(body, str):
        body = safe_json.loads_or(body, None)
    if not isinstance(body, dict):
        raise SuiteError(f"{case_id}: the capture holds no JSON request body")
    route = capture.route or "chat"
    turns = _turns(route, body)
    last = max((i for i, t in enumerate(turns) if t["role"] == "user"), default=None)
    if last is None:
        raise SuiteError(f"{case_id}: the capture's request has no user turn")
    vars_: dict[str, Any] = {"input": turns[last]["content"]}
    return Case(
        id=case_id,
        vars=vars_,
        expected=_answer(capture, route, body) or None,
        messages=turns[:last],
    )


def _turns(route: str, body: dict[str, Any]) -> list[dict[str, str]]:
    """The thread as plain text turns (user and assistant), whatever the route's shape."""
    source = body.get("input") if route == "responses" else body.get("messages")
    if isinstance(source, str):  # responses' input as one text
        return [{"role": "user", "content": source}]
    out = []
    for item in source if isinstance(source, list) else []:
        if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
            continue
        text = _text(item.get("content"))
        if text:
            out.append({"role": str(item["role"]), "content": text})
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p.get("text")
            for p in content
            if isinstance(p, dict) and p.get("type") in ("text", "input_text", "output_text")
        ]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _answer(capture: Capture, route: str, body: dict[str, Any]) -> str:
    """The answer's text as the panels decode it (an error status gives none)."""
    if capture.response_status is not None and not 200 <= capture.response_status < 300:
        return ""
    known = route if route in ("chat", "responses", "messages") else "auto"
    decoder = StreamDecoder(known, request=body)
    decoder.set_content_type(capture.content_type)
    last = 0.0
    for t, chunk in capture.chunks:
        decoder.feed(chunk, t)
        last = t
    decoder.finish(capture.end_t if capture.end_t is not None else last)
    return decoder.state.text
