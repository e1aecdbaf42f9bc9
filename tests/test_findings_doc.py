"""docs/findings.md lists every finding code, with every severity the code reports it at."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from playground.protocol.findings import CODES

ROOT = Path(__file__).resolve().parents[1]
SEVERITIES = ("info", "warning", "error")


def _doc_rows() -> dict[str, str]:
    """code -> its severity cell, from the table rows of docs/findings.md."""
    text = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for line in text.splitlines():
        found = re.match(r"\|\s*`([a-z_0-9]+)`\s*\|([^|]*)\|", line)
        if found and found.group(1) in CODES:
            rows[found.group(1)] = found.group(2)
    return rows


def _reported() -> set[str]:
    """The codes the source reports (the first string of every sink.report call, the second of
    every sink.once call, the third argument of no_event_line)."""
    out: set[str] = set()
    for path in (ROOT / "playground").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            where = {"report": 0, "once": 1, "no_event_line": 2}.get(node.func.attr)
            if where is None or len(node.args) <= where:
                continue
            arg = node.args[where]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.add(arg.value)
    return out


def test_every_code_is_documented_and_every_documented_code_exists() -> None:
    rows = _doc_rows()
    assert set(rows) == set(CODES)
    text = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\|\s*`([a-z_0-9]+)`\s*\|", text, flags=re.M))
    assert documented == set(CODES)  # and no row for a code that no longer exists


def test_every_reported_code_is_declared_and_documented_with_its_one_severity() -> None:
    rows = _doc_rows()
    assert _reported() == set(CODES), "a code reported but not in CODES, or never reported"
    for code, (severity, _meaning) in CODES.items():
        assert severity in SEVERITIES, code
        assert rows[code].strip() == severity, (code, severity, rows[code])
