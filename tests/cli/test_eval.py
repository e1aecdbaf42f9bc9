"""`playground eval`: exit 0 on the sample suite, 1 with a failing case, 2 with a bad suite; the
--json shape of the contract and JUnit XML a CI server reads."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from playground.__main__ import main
from playground.assets import sample_evaluation

SAMPLE = sample_evaluation()  # found as the installed program finds it (package data)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def _sample(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["pace"] = "instant"
    data.update(changes)
    return data


def _write(tmp_path: Path, data: Any, name: str = "suite.eval.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_sample_suite_passes_with_json_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, junit = tmp_path / "out.json", tmp_path / "junit.xml"
    code = main(["eval", str(SAMPLE), "--json", str(out), "--junit", str(junit)])
    printed = capsys.readouterr()
    assert code == 0, printed
    assert "12/12 passed" in printed.out and "eval: 12 done" in printed.err
    document = json.loads(out.read_text())
    assert set(document) == {"experiment", "cells", "summary"}
    assert document["summary"] == {
        "cells": 12,
        "passed": 12,
        "failed": 0,
        "errors": 0,
        "requests": 12,
        "retries": 0,
        # The sample's "sim-small" is not in the simulator's priced list: unknown, never 0.
        "cost": None,
    }
    assert all(c["cost"] is None and c["cache"]["status"] for c in document["cells"])
    first = document["cells"][0]
    assert {
        "case",
        "variant",
        "repeat",
        "status",
        "checks",
        "pass",
        "ttft_ms",
        "output_tokens",
        "capture",
        "cache",
        "cost",
    } == set(first)
    assert all(set(c) == {"type", "pass", "value"} for c in first["checks"])
    assert Path(first["capture"]).is_file()
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("12", "0", "0")
    assert len(suite.findall("testcase")) == 12


def test_a_failing_case_exits_1_and_junit_names_its_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _sample()
    data["cases"].append(
        {"id": "broken", "vars": {"topic": "lakes", "audience": "cat"}, "fault": "midstream-error"}
    )
    data["cases"].append(
        {
            "id": "wrong",
            "vars": {"topic": "moss", "audience": "cat"},
            "checks": [{"type": "equals", "value": "moss"}],
        }
    )
    junit = tmp_path / "junit.xml"
    out = tmp_path / "out.json"
    code = main(
        [
            "eval",
            str(_write(tmp_path, data)),
            "--junit",
            str(junit),
            "--variant",
            "chat",
            "--variant",
            "messages",
            "--json",
            str(out),
        ]
    )
    assert code == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("12", "2", "2")
    failed = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert sorted(c.get("name") or "" for c in failed) == ["wrong [chat]", "wrong [messages]"]
    failure = failed[0].find("failure")
    assert failure is not None and failure.get("message") == "failed: equals"
    errored = [c for c in suite.findall("testcase") if c.find("error") is not None]
    assert sorted(c.get("name") or "" for c in errored) == ["broken [chat]", "broken [messages]"]
    # The same suite again with this run as the baseline: nothing regressed, nothing fixed.
    again = main(
        [
            "eval",
            str(_write(tmp_path, data)),
            "--variant",
            "chat",
            "--variant",
            "messages",
            "--baseline",
            str(out),
            "--json",
            str(tmp_path / "again.json"),
        ]
    )
    assert again == 1
    assert "since the baseline (12 cells in both), median change: TTFT" in capsys.readouterr().out
    second = json.loads((tmp_path / "again.json").read_text())
    assert second["regressions"] == [] and second["fixed"] == []


def test_the_pass_rate_threshold_decides_the_exit(tmp_path: Path) -> None:
    data = _sample(pass_rate=0.5, repeat=2, variants=_sample()["variants"][:1])
    data["cases"] = data["cases"][:2]
    data["cases"][1]["fault"] = "http-500"
    assert main(["eval", str(_write(tmp_path, data)), "--quiet"]) == 1
    data["cases"][1].pop("fault")
    data["cases"][1]["checks"] = [{"type": "contains", "value": "never there"}]
    assert main(["eval", str(_write(tmp_path, data)), "--quiet", "--repeat", "1"]) == 1


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["{"], "not valid JSON"),
        ([{"variants": [], "cases": []}], "variants: at least one variant"),
        (["SAMPLE", "--variant", "nope"], "no variant named 'nope'"),
        (["SAMPLE", "--baseline", "no-such-experiment"], "--baseline: no-such-experiment"),
        (["SAMPLE", "--repeat", "0"], "must be at least 1"),
    ],
)
def test_a_suite_that_cannot_run_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[Any], reason: str
) -> None:
    first = args[0]
    if first == "SAMPLE":
        path = SAMPLE
    elif isinstance(first, str):
        path = tmp_path / "bad.eval.json"
        path.write_text(first)
    else:
        path = _write(tmp_path, first)
    assert main(["eval", str(path), *args[1:]]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and reason in err
