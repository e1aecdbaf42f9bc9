"""Experiments on disk: each grid run saved atomically with its suite, cells, scores and figures;
listed newest first; any two compared (regressions first, then fixed, then the deltas).

Layout under the data folder: ``experiments/<id>/experiment.json`` (written once, atomically,
when the run ends) and ``experiments/<id>/cells/*.capture.jsonl`` (each cell's run, journaled as
it streams by the project's capture journal).
"""

from __future__ import annotations

import secrets as _random
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from playground.evaluate.runner import Cell
from playground.protocol import safe_json
from playground.runs.atomic import write_json_atomically
from playground.runs.paths import data_dir

__all__ = [
    "FORMAT",
    "Comparison",
    "Experiment",
    "compare",
    "experiments_root",
    "list_experiments",
    "load_experiment",
    "load_results",
    "new_experiment",
    "save_experiment",
    "summarize",
]

FORMAT: Final = "playground-experiment/1"
FILE: Final = "experiment.json"
MAX_FILE_BYTES: Final = 256 << 20  # an experiment file larger than this is not read


@dataclass
class Experiment:
    id: str
    folder: Path
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def cells_dir(self) -> Path:
        return self.folder / "cells"

    @property
    def cells(self) -> list[dict[str, Any]]:
        cells = self.data.get("cells")
        return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


def experiments_root(root: Path | None = None) -> Path:
    return root if root is not None else data_dir() / "experiments"


def new_experiment(suite_name: str, root: Path | None = None) -> Experiment:
    """A fresh experiment folder (its cells folder made), named by time, suite and a nonce."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    slug = "".join(ch if ch.isalnum() else "-" for ch in suite_name.lower()).strip("-")[:32]
    exp_id = f"{stamp}-{slug or 'suite'}-{_random.token_hex(3)}"
    folder = experiments_root(root) / exp_id
    (folder / "cells").mkdir(parents=True, exist_ok=False)
    return Experiment(exp_id, folder)


def summarize(cells: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """cells, passed, failed (ran, a check failed), errors (the run did not complete), and
    the cost of them all (null when a price is unknown)."""
    rows = list(cells)
    errors = sum(1 for c in rows if c.get("status") not in ("complete", "incomplete"))
    passed = sum(1 for c in rows if c.get("pass"))
    return {
        "cells": len(rows),
        "passed": passed,
        "failed": len(rows) - passed - errors,
        "errors": errors,
        "cost": total_cost(rows),
    }


def total_cost(cells: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The experiment's cost: its cells' totals added (None when any cell's is unknown)."""
    costs = [c.get("cost") for c in cells]
    if not costs or not all(isinstance(c, dict) for c in costs):
        return None
    currencies = {c.get("currency") for c in costs if isinstance(c, dict)}
    if len(currencies) != 1:
        return None
    total = sum(float(c.get("total") or 0.0) for c in costs if isinstance(c, dict))
    return {"total": total, "currency": currencies.pop()}


def save_experiment(
    experiment: Experiment,
    suite_source: dict[str, Any],
    cells: list[Cell],
    *,
    started_at: str,
    requests: int,
    retries: int,
    cancelled: bool,
    extra: dict[str, Any] | None = None,
) -> None:
    """Write the experiment's file atomically: the suite as it was, every cell, the summary."""
    rows = [c.as_json() for c in cells]
    experiment.data = {
        "format": FORMAT,
        "id": experiment.id,
        "suite": suite_source,
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "cancelled": cancelled,
        "requests": requests,
        "retries": retries,
        "cells": rows,
        "summary": summarize(rows) | {"requests": requests, "retries": retries},
        **(extra or {}),
    }
    write_json_atomically(experiment.folder / FILE, experiment.data, prefix=".experiment-")


def load_experiment(folder: Path) -> Experiment:
    """An experiment read back; ValueError names the file and what is wrong with it."""
    path = Path(folder) / FILE
    data = _read_json(path)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return Experiment(str(data.get("id") or Path(folder).name), Path(folder), data)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
        data = safe_json.loads(path.read_bytes())
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or 'I/O error'})") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def list_experiments(root: Path | None = None) -> list[Experiment]:
    """Every readable experiment, newest first (an unreadable one is skipped)."""
    base = experiments_root(root)
    if not base.is_dir():
        return []
    found = []
    for folder in base.iterdir():
        if (folder / FILE).is_file():
            try:
                found.append(load_experiment(folder))
            except ValueError:
                continue
    return sorted(found, key=lambda e: str(e.data.get("started_at", "")), reverse=True)


def load_results(reference: str, root: Path | None = None) -> list[dict[str, Any]]:
    """The cells of an experiment id, an experiment folder, its file, or a ``--json`` output."""
    path = Path(reference)
    candidates = [experiments_root(root) / reference / FILE, path / FILE, path]
    for candidate in candidates:
        if candidate.is_file():
            data = _read_json(candidate)
            cells = data.get("cells")
            if not isinstance(cells, list):
                raise ValueError(f"{candidate}: holds no cells")
            return [c for c in cells if isinstance(c, dict)]
    raise ValueError(f"{reference}: no such experiment or results file")


@dataclass
class Comparison:
    """Two runs of the grid, cell by (case, variant): what broke, what was fixed, what moved."""

    regressions: list[dict[str, Any]]
    fixed: list[dict[str, Any]]
    deltas: list[dict[str, Any]]  # per (case, variant) in both: figure and pass-rate changes
    added: list[dict[str, str]]
    removed: list[dict[str, str]]

    def as_json(self) -> dict[str, Any]:
        return {
            "regressions": self.regressions,
            "fixed": self.fixed,
            "deltas": self.deltas,
            "added": self.added,
            "removed": self.removed,
        }


_FIGURES: Final = ("ttft_ms", "output_tokens", "duration_ms")


def _groups(cells: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for cell in cells:
        out.setdefault((str(cell.get("case")), str(cell.get("variant"))), []).append(cell)
    return out


def _median(cells: list[dict[str, Any]], name: str) -> float | None:
    numbers = [
        float(c[name])
        for c in cells
        if isinstance(c.get(name), int | float) and not isinstance(c.get(name), bool)
    ]
    return statistics.median(numbers) if numbers else None


def _rate(cells: list[dict[str, Any]]) -> float:
    return sum(1 for c in cells if c.get("pass")) / len(cells) if cells else 0.0


def compare(baseline: list[dict[str, Any]], current: list[dict[str, Any]]) -> Comparison:
    """Compare two runs: a (case, variant) regressed when every repeat passed before and not now
    (its pass rate fell to below 1), fixed the other way; then the deltas of the medians."""
    before, after = _groups(baseline), _groups(current)
    regressions, fixed, deltas = [], [], []
    for key in after:
        if key not in before:
            continue
        was, now = _rate(before[key]), _rate(after[key])
        row = {"case": key[0], "variant": key[1]}
        if was == 1.0 and now < 1.0:
            regressions.append(
                row
                | {
                    "was": was,
                    "now": now,
                    "output_was": _output(before[key]),
                    "output_now": _output(after[key]),
                }
            )
        elif was < 1.0 and now == 1.0:
            fixed.append(row | {"was": was, "now": now})
        delta: dict[str, Any] = dict(row) | {"pass_rate": round(now - was, 6)}
        for name in _FIGURES:
            a, b = _median(before[key], name), _median(after[key], name)
            delta[name] = None if a is None or b is None else round(b - a, 3)
        delta["checks"] = _check_deltas(before[key], after[key])
        deltas.append(delta)
    added = [{"case": k[0], "variant": k[1]} for k in after if k not in before]
    removed = [{"case": k[0], "variant": k[1]} for k in before if k not in after]
    return Comparison(regressions, fixed, deltas, added, removed)


def _check_rates(cells: list[dict[str, Any]]) -> dict[str, float]:
    """Each check type's share of passes over the repeats (a type used twice counts twice)."""
    tally: dict[str, list[bool]] = {}
    for cell in cells:
        checks = cell.get("checks")
        for check in checks if isinstance(checks, list) else []:
            if isinstance(check, dict) and isinstance(check.get("type"), str):
                tally.setdefault(check["type"], []).append(bool(check.get("pass")))
    return {name: sum(v) / len(v) for name, v in tally.items()}


def _check_deltas(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, float]:
    """The change of each check's pass rate, for the checks both runs made whose rate moved."""
    was, now = _check_rates(before), _check_rates(after)
    moved = {n: round(now[n] - was[n], 6) for n in was.keys() & now.keys()}
    return {n: d for n, d in sorted(moved.items()) if d}


def _output(cells: list[dict[str, Any]]) -> str:
    """The first repeat's answer, for the side-by-side view."""
    first = cells[0].get("output") if cells else None
    return first if isinstance(first, str) else ""
