"""`playground eval SUITE`: run a suite's grid headless, print progress and a summary, exit 0/1/2.

0: every cell passed (or each cell's pass rate met the suite's ``pass_rate``); 1: some failed;
2: the suite cannot run (one line on stderr says why). The built-in simulator is started
in-process on 127.0.0.1 for the variants (and judges) that name no provider.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from playground.cli.usage import OneLineParser, UsageError

__all__ = ["main"]

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_CANNOT_RUN = 2
PROGRESS_EVERY_S = 1.0


class _CannotRun(Exception):
    pass


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _parser() -> OneLineParser:
    parser = OneLineParser(
        prog="playground eval",
        description="Run an evaluation suite (docs/evaluate.md) over its cases and variants.",
    )
    parser.add_argument("suite", help="the suite file (JSON)")
    parser.add_argument(
        "--variant", action="append", default=[], metavar="NAME", help="run only this variant"
    )
    parser.add_argument("--repeat", type=_positive, help="runs per cell (default: the suite's)")
    parser.add_argument(
        "--concurrency", type=_positive, help="requests at once per provider (default 4)"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the results as JSON")
    parser.add_argument("--junit", type=Path, metavar="OUT", help="write JUnit XML")
    parser.add_argument(
        "--baseline",
        metavar="EXPERIMENT_OR_JSON",
        help="compare with an earlier experiment (its id or folder) or a --json file",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


class _ProgressLine:
    """Progress on stderr, at most once a second (and the last one always)."""

    def __init__(self, out: TextIO, quiet: bool) -> None:
        self.out = out
        self.quiet = quiet
        self.last = 0.0
        self.said: tuple[int, int, int] | None = None

    def __call__(self, progress: Any) -> None:
        now = time.monotonic()
        if self.quiet or (progress.remaining and now - self.last < PROGRESS_EVERY_S):
            return
        said = (progress.done, progress.failed, progress.requests)
        if said == self.said:
            return
        self.last, self.said = now, said
        eta = f", ~{progress.eta_s:.0f}s left" if progress.eta_s is not None else ""
        paused = "".join(
            f", {name} paused {seconds:.1f}s" for name, seconds in progress.paused.items()
        )
        print(
            f"eval: {progress.done} done, {progress.failed} failed, {progress.remaining} to go, "
            f"{progress.requests} requests{eta}{paused}",
            file=self.out,
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except (_CannotRun, UsageError) as exc:
        print(f"playground eval: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN


def _main(argv: list[str]) -> int:
    from playground.evaluate.experiments import compare, load_results
    from playground.evaluate.grid import prepare_grid, run_grid
    from playground.evaluate.report import (
        results_json,
        suite_passed,
        summary_table,
        write_junit,
    )
    from playground.evaluate.suite import SuiteError, load_suite

    args = _parser().parse_args(argv)
    try:
        suite = load_suite(Path(args.suite))
        for name in args.variant:
            suite.variant(name)
    except SuiteError as exc:
        raise _CannotRun(str(exc)) from None
    baseline = None
    if args.baseline:
        try:
            baseline = load_results(args.baseline)
        except ValueError as exc:
            raise _CannotRun(f"--baseline: {exc}") from None
    from playground.sim.server import SimServer

    try:
        sim = SimServer().start()
    except (OSError, RuntimeError) as exc:
        raise _CannotRun(f"the built-in simulator did not start ({exc})") from None
    try:
        try:
            grid = prepare_grid(
                suite,
                base_urls={"simulator": sim.base_url},
                variants=args.variant or None,
                repeat=args.repeat,
                concurrency=args.concurrency,
                progress=_ProgressLine(sys.stderr, args.quiet),
            )
        except OSError as exc:
            raise _CannotRun(
                f"the experiment folder cannot be made ({exc.strerror or exc})"
            ) from None
        try:
            asyncio.run(run_grid(grid))
        except KeyboardInterrupt:  # Ctrl+C: the streams were cancelled and the experiment saved
            print("eval: stopped; unfinished cells are cancelled", file=sys.stderr)
    finally:
        sim.stop()
    runner = grid.runner
    cells = runner.cells
    comparison = compare(baseline, [c.as_json() for c in cells]) if baseline is not None else None
    print(summary_table(cells))
    document = results_json(
        grid.experiment.id,
        cells,
        requests=runner.requests,
        retries=runner.retries,
        comparison=comparison,
    )
    summary = document["summary"]
    print(
        f"{summary['passed']}/{summary['cells']} passed, {summary['failed']} failed, "
        f"{summary['errors']} errors; {summary['requests']} requests "
        f"({summary['retries']} resent); experiment {grid.experiment.id}"
    )
    if comparison is not None:
        for row in comparison.regressions:
            print(f"regressed: {row['case']} [{row['variant']}]")
        for row in comparison.fixed:
            print(f"fixed: {row['case']} [{row['variant']}]")
        print(_deltas_line(comparison.deltas))
    if args.json is not None:
        _write_json(args.json, document)
    if args.junit is not None:
        write_junit(args.junit, suite.name, cells)
    return EXIT_PASSED if suite_passed(cells, suite.pass_rate) else EXIT_FAILED


def _deltas_line(deltas: list[dict[str, Any]]) -> str:
    """The median over the cells both runs share of each figure's change since the baseline."""
    import statistics

    parts = []
    for name, label, unit in (
        ("ttft_ms", "TTFT", " ms"),
        ("output_tokens", "tokens", ""),
        ("duration_ms", "time", " ms"),
    ):
        moved = [d[name] for d in deltas if isinstance(d.get(name), int | float)]
        if moved:
            parts.append(f"{label} {statistics.median(moved):+.1f}{unit}")
    shared = len(deltas)
    return f"since the baseline ({shared} cells in both), median change: " + (
        ", ".join(parts) or "none measured"
    )


def _write_json(path: Path, document: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)
