"""The suite's reader: the contract's shape, and each mistake named with its place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playground.evaluate.suite import SuiteError, load_suite, parse_suite

GOOD: dict[str, Any] = {
    "name": "s",
    "variants": [{"name": "A", "route": "chat", "model": "m", "prompt": "About {{topic}}"}],
    "cases": [{"id": "c1", "vars": {"topic": "x"}, "expected": "x", "checks": [], "fault": None}],
    "checks": [{"type": "contains", "value": "{{topic}}"}],
    "repeat": 2,
    "concurrency": 3,
}


def _with(**changes: Any) -> dict[str, Any]:
    return GOOD | changes


def test_the_contract_shape_reads() -> None:
    suite = parse_suite(GOOD)
    assert (suite.repeat, suite.concurrency, suite.pass_rate) == (2, 3, 1.0)
    assert suite.variants[0].provider_id == "simulator"
    assert suite.checks_for(suite.cases[0]) == GOOD["checks"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_with(variants=[]), "variants: at least one variant"),
        (
            _with(variants=[GOOD["variants"][0] | {"route": "images"}]),
            "variants[0].route: 'images'",
        ),
        (
            _with(variants=[GOOD["variants"][0], GOOD["variants"][0]]),
            "variants[1].name: 'A' is used twice",
        ),
        (
            _with(variants=[GOOD["variants"][0] | {"provider": "acme"}]),
            "variants[0].provider: 'acme'",
        ),
        (_with(cases=[{"id": "c1", "vars": {}}]), "cases[0] (c1): no value for {{topic}}"),
        (
            _with(cases=[{"id": "c1", "vars": {"topic": "x"}, "fault": "fire"}]),
            "cases[0].fault: 'fire'",
        ),
        (_with(checks=[{"type": "ttft_ms"}]), "checks[0] (ttft_ms): 'max' is a required property"),
        (
            _with(checks=[{"type": "regexp", "pattern": "a"}]),
            "checks[0].type: 'regexp' is not a scorer",
        ),
        (_with(checks=[{"type": "contains", "value": "{{nope}}"}]), "uses {{nope}}"),
        (_with(repeat=0), "repeat: a whole number from 1 to 100"),
        (_with(pass_rate=2), "pass_rate: a number from 0 to 1"),
        ([], "the suite: an object, not a list"),
        (_with(concurency=2), "concurency: not a key here"),
        (_with(cases=[{"id": "c1", "vars": {"topic": "x"}, "expect": "x"}]), "cases[0].expect:"),
        (_with(variants=[GOOD["variants"][0] | {"temperature": 0}]), "variants[0].temperature:"),
    ],
)
def test_each_mistake_says_what_and_where(data: Any, message: str) -> None:
    with pytest.raises(SuiteError) as raised:
        parse_suite(data)
    assert message in str(raised.value)


def test_a_file_that_is_not_json_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "broken.eval.json"
    path.write_text("{")
    with pytest.raises(SuiteError, match=r"broken\.eval\.json: not valid JSON"):
        load_suite(path)
