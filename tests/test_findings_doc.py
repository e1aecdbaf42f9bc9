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


def _reported() -> dict[str, set[str]]:
    """code -> the severities the source reports it at (every sink.report / once call)."""
    out: dict[str, set[str]] = {}
    for path in (ROOT / "playground").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
            texts = [t for t in texts if isinstance(t, str)]
            severity = next((t for t in texts if t in SEVERITIES), None)
            if severity is None:
                continue
            if node.func.attr == "no_event_line":
                code = "no_event_line"
            elif node.func.attr in ("report", "once"):
                after = texts[texts.index(severity) + 1 :]
                code = after[0] if after else ""
            else:
                continue
            out.setdefault(code, set()).add(severity)
    return out


def test_every_code_is_documented_and_every_documented_code_exists() -> None:
    rows = _doc_rows()
    assert set(rows) == set(CODES)
    text = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\|\s*`([a-z_0-9]+)`\s*\|", text, flags=re.M))
    assert documented == set(CODES)  # and no row for a code that no longer exists


def test_every_reported_code_is_in_the_catalogue_with_its_severities() -> None:
    rows = _doc_rows()
    reported = _reported()
    assert set(reported) == set(CODES), "a code reported but not in CODES, or never reported"
    for code, severities in reported.items():
        cell = rows[code]
        for severity in severities:
            assert severity in cell, (code, severity, cell)
