"""The registry: a check's mistakes are named with their place; the docs list every scorer."""

from __future__ import annotations

import re
from pathlib import Path

from playground.evaluate.scorers import SCORERS, check_problem

DOCS = Path(__file__).resolve().parents[3] / "docs" / "evaluate.md"


def test_check_problem_names_the_parameter() -> None:
    assert check_problem({"type": "ttft_ms", "max": 10}) is None
    assert "'max' is a required property" in (check_problem({"type": "ttft_ms"}) or "")
    wrong = check_problem({"type": "ttft_ms", "max": "fast"}) or ""
    assert wrong.startswith(".max (ttft_ms)")
    unknown = check_problem({"type": "ttft_mss", "max": 1}) or ""
    assert unknown.startswith(".type: 'ttft_mss' is not a scorer")
    extra = check_problem({"type": "contains", "valeu": "x"}) or ""
    assert "valeu" in extra


def test_docs_list_every_scorer_and_its_parameters() -> None:
    text = DOCS.read_text(encoding="utf-8").split("\n## Scorers\n", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE))
    assert documented == set(SCORERS)
    for name, found in SCORERS.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        for param in found.params:
            assert f"`{param}`" in row, (name, param)
