"""A finished grid as the world reads it: the ``--json`` results, JUnit XML, a summary table, and
whether the suite passed (every cell, or each cell's pass rate at the suite's threshold)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playground.evaluate.experiments import Comparison, summarize
from playground.evaluate.runner import Cell

__all__ = ["pass_rates", "results_json", "suite_passed", "summary_table", "write_junit"]


def pass_rates(cells: Sequence[Cell]) -> dict[tuple[str, str], float]:
    """Each (case, variant)'s share of repeats that passed."""
    groups: dict[tuple[str, str], list[bool]] = {}
    for cell in cells:
        groups.setdefault((cell.case, cell.variant), []).append(bool(cell.passed))
    return {key: sum(v) / len(v) for key, v in groups.items()}


def suite_passed(cells: Sequence[Cell], pass_rate: float) -> bool:
    """Every (case, variant) passed in at least ``pass_rate`` of its repeats (1.0: all of them)."""
    if any(c.status == "cancelled" for c in cells):
        return False
    return all(rate >= pass_rate - 1e-9 for rate in pass_rates(cells).values())


def results_json(
    experiment_id: str,
    cells: Sequence[Cell],
    *,
    requests: int,
    retries: int,
    comparison: Comparison | None = None,
) -> dict[str, Any]:
    """The ``--json`` document: experiment, cells, summary (every request counted in it), and
    with a baseline the regressed and fixed cells; the experiment file keeps the rest."""
    rows = [c.contract_json() for c in cells]
    out: dict[str, Any] = {
        "experiment": experiment_id,
        "cells": rows,
        "summary": summarize(rows) | {"requests": requests, "retries": retries},
    }
    if comparison is not None:
        out["regressions"] = [
            {"case": r["case"], "variant": r["variant"]} for r in comparison.regressions
        ]
        out["fixed"] = [{"case": r["case"], "variant": r["variant"]} for r in comparison.fixed]
    return out


def write_junit(path: Path, suite_name: str, cells: Sequence[Cell]) -> None:
    """JUnit XML as CI servers read it: one testcase per cell; a failing check is a failure, a run
    that did not complete an error, a cancelled cell skipped."""
    failures = sum(1 for c in cells if c.status in ("complete", "incomplete") and not c.passed)
    errors = sum(1 for c in cells if c.status not in ("complete", "incomplete", "cancelled"))
    skipped = sum(1 for c in cells if c.status == "cancelled")
    seconds = sum((c.figures.get("duration_ms") or 0.0) for c in cells) / 1000.0
    root = ET.Element("testsuites", name=suite_name)
    suite = ET.SubElement(
        root,
        "testsuite",
        name=suite_name,
        tests=str(len(cells)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(skipped),
        time=f"{seconds:.3f}",
    )
    for cell in cells:
        name = f"{cell.case} [{cell.variant}]" + (f" #{cell.repeat}" if cell.repeat > 1 else "")
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"{suite_name}.{cell.variant}",
            name=name,
            time=f"{(cell.figures.get('duration_ms') or 0.0) / 1000.0:.3f}",
        )
        failing = [c for c in cell.checks if not c.passed]
        lines = "\n".join(f"{c.type}: {c.detail or c.value!r}" for c in failing)
        if cell.status == "cancelled":
            ET.SubElement(case, "skipped", message="cancelled before it was scored")
        elif cell.status not in ("complete", "incomplete"):
            element = ET.SubElement(
                case,
                "error",
                message=f"the run {cell.status}: {cell.error or ''}"[:500],
                type=cell.status,
            )
            element.text = lines
        elif failing:
            element = ET.SubElement(
                case,
                "failure",
                message="failed: " + ", ".join(c.type for c in failing),
                type="checks",
            )
            element.text = lines
        if cell.capture:
            ET.SubElement(case, "system-out").text = f"capture: {cell.capture}"
    tree = ET.ElementTree(root)
    ET.indent(tree)
    tmp = path.with_name(path.name + ".tmp")
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    tmp.replace(path)


def summary_table(cells: Sequence[Cell]) -> str:
    """Cases down, variants across: each (case, variant)'s passes over repeats and median TTFT."""
    import statistics

    variants = list(dict.fromkeys(c.variant for c in cells))
    cases = list(dict.fromkeys(c.case for c in cells))
    by_key: dict[tuple[str, str], list[Cell]] = {}
    for cell in cells:
        by_key.setdefault((cell.case, cell.variant), []).append(cell)
    rows = [["case", *variants]]
    for case in cases:
        row = [case]
        for variant in variants:
            group = by_key.get((case, variant), [])
            passed = sum(1 for c in group if c.passed)
            ttfts = [c.figures["ttft_ms"] for c in group if c.figures.get("ttft_ms") is not None]
            mark = "PASS" if group and passed == len(group) else "FAIL"
            if any(c.status == "cancelled" for c in group):
                mark = "STOP"
            ttft = f" {statistics.median(ttfts):.0f}ms" if ttfts else ""
            row.append(f"{mark} {passed}/{len(group)}{ttft}")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)
