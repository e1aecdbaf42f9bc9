"""contains, not_contains, equals and regex: value or expected, variables, case and whitespace."""

from __future__ import annotations

from tests.evaluate.scorers.helpers import answer, score


def test_contains_fills_variables_and_honours_ignore_case() -> None:
    run = answer("All about Rivers and lakes")
    assert score({"type": "contains", "value": "{{topic}}"}, run, topic="Rivers").passed
    assert not score({"type": "contains", "value": "{{topic}}"}, run, topic="rivers").passed
    hit = score(
        {"type": "contains", "value": "{{topic}}", "ignore_case": True}, run, topic="rivers"
    )
    assert hit.passed and hit.value is True


def test_contains_and_equals_default_to_expected() -> None:
    run = answer("  The answer\n is   42. ")
    assert score({"type": "contains"}, run, expected="is   42").passed
    assert not score({"type": "equals"}, run, expected="The answer is 42.").passed
    loose = {"type": "equals", "normalize_whitespace": True}
    assert score(loose, run, expected="The answer is 42.").passed
    missing = score({"type": "equals"}, run)
    assert not missing.passed and "no value" in missing.detail


def test_not_contains_fails_when_found() -> None:
    run = answer("an ERROR happened")
    assert score({"type": "not_contains", "value": "error"}, run).passed
    found = score({"type": "not_contains", "value": "error", "ignore_case": True}, run)
    assert not found.passed and found.value is True


def test_regex_reports_the_match_and_a_bad_pattern() -> None:
    run = answer("Order 1234 shipped")
    hit = score({"type": "regex", "pattern": r"\d+ {{verb}}"}, run, verb="shipped")
    assert hit.passed and hit.value == "1234 shipped"
    assert not score({"type": "regex", "pattern": "order"}, run).passed
    assert score({"type": "regex", "pattern": "order", "ignore_case": True}, run).passed
    bad = score({"type": "regex", "pattern": "("}, run)
    assert not bad.passed and "not a valid pattern" in bad.detail
