"""`playground bench`: the issue-7 benchmarks, one `name: value` line per figure, then a table.

Every peer is measured in the same run on the same bytes. Benchmarks that need Qt run in a child
process each (``python -m playground.bench.runner --child GROUP``), so a crash or a missing piece
there becomes an ``n/a (reason)`` figure instead of ending the run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from playground.bench.machine import machine as machine  # re-exported: the run's footer

Value = float | str  # a number, or "n/a (reason)"


@dataclass(frozen=True)
class Figure:
    """One headline figure: its goal (None: shown beside the others, with no goal of its own)
    and the group that measures it."""

    name: str
    group: str
    goal: float | None
    higher_is_better: bool
    unit: str = "x"

    def goal_text(self) -> str:
        if self.goal is None:
            return "-"
        sign = ">=" if self.higher_is_better else "<="
        return f"{sign} {self.goal:g}{'' if self.unit == 'x' else ' ' + self.unit}"

    def met(self, value: Value) -> str:
        if isinstance(value, str):
            return "n/a"
        if self.goal is None:
            return "-"
        ok = value >= self.goal if self.higher_is_better else value <= self.goal
        return "yes" if ok else "NO"


FIGURES: tuple[Figure, ...] = (
    Figure("parser_vs_httpx_sse_4k", "parser", 4.5, True),
    Figure("parser_vs_openai_4k", "parser", 12.0, True),
    Figure("parser_vs_httpx_sse_30b", "parser", 5.5, True),
    Figure("parser_vs_sseclient_30b", "parser", 3.0, True),
    Figure("decode_vs_openai_sdk", "decode", 8.0, True),
    Figure("ui_vs_raw_client", "ui", 0.9, True),
    Figure("ui_markdown_vs_plain", "ui", 0.95, True),
    Figure("ui_stall_p99_ms", "ui", 25.0, False, "ms"),
    Figure("ui_stall_2k_p99_ms", "ui", 16.0, False, "ms"),
    Figure("render_growth", "render", 2.0, False),
    Figure("markdown_growth", "markdown", 2.0, False),
    Figure("markdown_frame_ms", "markdown", 8.0, False, "ms"),
    Figure("timeline_bytes_per_event", "timeline", 200.0, False, "B"),
    Figure("image_partial_ms", "image", 25.0, False, "ms"),
    Figure("image_ui_block_ms", "image", 8.0, False, "ms"),
    Figure("image_partial_vs_naive", "image", 0.4, False),
    Figure("startup_vs_bare_qt", "startup", 1.5, False),
    # The window shows empty first and builds its contents after that paint: this is the time
    # to the whole window, reported beside the goal's first paint so neither hides the other.
    Figure("startup_ready_vs_bare_qt", "startup", None, False),
    Figure("proxy_vs_direct", "proxy", 0.8, True),
    Figure("proxy_added_ms_p99", "proxy", 2.0, False, "ms"),
    Figure("session_memory_growth", "session", 1.2, False),
    Figure("session_frame_ms_p99", "session", 12.0, False, "ms"),
    Figure("transcript_open_ms", "transcript", 250.0, False, "ms"),
    Figure("transcript_scroll_p99_ms", "transcript", 16.0, False, "ms"),
    Figure("eval_vs_raw_client", "eval", 0.9, True),
    Figure("eval_cell_kib", "eval", 64.0, False, "KiB"),
    Figure("eval_frame_p99_ms", "eval", 16.0, False, "ms"),
    # Peak RSS over input size, the worse of `inspect` and the window (bench/hostile.py).
    Figure("hostile_line_rss_ratio", "hostile", 3.0, False),
    Figure("hostile_invalid_rss_ratio", "hostile", 3.0, False),
    Figure("hostile_deep_rss_ratio", "hostile", 3.0, False),
)

GROUPS: tuple[str, ...] = (
    "parser",
    "decode",
    "timeline",
    "render",
    "markdown",
    "image",
    "startup",
    "ui",
    "proxy",
    "session",
    "transcript",
    "eval",
    "hostile",
)
# A plain run measures these; the long session (about 25 s), the long transcript (about 15 s),
# the evaluation grid (450 streams at realtime pace, about 4.5 min; --quick 180, about 2 min) and
# the hostile inputs (a minute or two of child processes) run on their own: --only session,
# --only transcript, --only eval, --only hostile.
_ON_THEIR_OWN: tuple[str, ...] = ("session", "transcript", "eval", "hostile")
DEFAULT_GROUPS: tuple[str, ...] = tuple(g for g in GROUPS if g not in _ON_THEIR_OWN)
QT_GROUPS: frozenset[str] = frozenset(
    {"timeline", "render", "markdown", "image", "ui", "session", "transcript", "eval"}
)
# Wall-time figures move with the machine's load: each is the median of ``Sizes.repeats``
# repetitions inside one run, and the table prints their spread (``NAME_min``..``NAME_max``).
REPEATED: frozenset[str] = frozenset({"ui", "image", "startup", "proxy"})


@dataclass(frozen=True)
class Sizes:
    """How big each benchmark runs: full, ``--quick`` (about 3 minutes) or ``--tiny`` (tests)."""

    parser_events: int
    parser_repeat: int
    decode_events: int
    decode_repeat: int
    timeline_events: int
    render_tokens: int
    image_partials: int
    startup_repeat: int
    ui_chunks: int
    child_timeout: float
    proxy_events: int = 30_000  # the full-speed stream, each way
    proxy_paced: int = 300  # paced events per round (10 ms apart)
    proxy_repeat: int = 3  # full-speed runs each way
    proxy_rounds: int = 5  # paced rounds (the best one is the figure)
    markdown_tokens: int = 50_000
    repeats: int = 3  # repetitions of each REPEATED group (the figure is their median)
    ui_paced_tokens: int = 4_000  # the 2,000 tokens/s stream of ui_stall_2k_p99_ms
    session_runs: int = 50  # runs into one panel's thread and history
    session_tokens: int = 2_000  # tokens per run
    transcript_turns: int = 200  # turns of the saved conversation opened and scrolled
    eval_cases: int = 50  # × 3 variants × 3 repeats: 450 streams
    eval_memory_cases: int = 20  # × 9: the instant grid whose memory per cell is measured
    hostile_bytes: int = 8_000_000  # each hostile input's size (the group takes about 2 min)


FULL = Sizes(
    200_000,
    7,
    200_000,
    9,
    1_000_000,
    50_000,
    12,
    3,
    100_000,
    600.0,
    100_000,
    1000,
    3,
    3,
    ui_paced_tokens=10_000,
)
# Per repetition: startup best of 2, the proxy's best of 2 full-speed runs and of 2 paced rounds.
# The decode is best of 15 pairs of runs of about 0.07 s each (bench/decode.py): on a 2-core
# AMD EPYC VM best of 3 gave 8.9 and 4.6 in two runs a minute apart, the CPU time of the same
# work moving by 2x. The parser is best of 9 rounds, each peer over its share of the stream
# (bench/parsers.py): as long in all as 5 rounds of every peer over the whole stream were.
QUICK = Sizes(
    50_000, 9, 30_000, 15, 100_000, 50_000, 6, 2, 100_000, 240.0, 30_000, 300, 2, 2, eval_cases=20
)
TINY = Sizes(
    300,
    1,
    200,
    1,
    2_000,
    1_200,
    1,
    1,
    300,
    120.0,
    500,
    30,
    1,
    1,
    markdown_tokens=1_200,
    repeats=1,
    ui_paced_tokens=100,
    session_runs=6,
    session_tokens=50,
    transcript_turns=6,
    eval_cases=2,
    eval_memory_cases=2,
    hostile_bytes=200_000,
)


def _run_group(group: str, sizes: Sizes) -> dict[str, Value]:
    """Measure one group in this process (the child side for Qt groups)."""
    if group == "parser":
        from playground.bench.parsers import parser_figures

        return dict(parser_figures(sizes.parser_events, sizes.parser_repeat))
    if group == "decode":
        from playground.bench.decode import decode_figures

        return dict(decode_figures(sizes.decode_events, sizes.decode_repeat))
    if group == "timeline":
        from playground.bench.timeline import timeline_figures

        return timeline_figures(sizes.timeline_events)
    if group == "render":
        from playground.bench.render import render_figures

        return render_figures(sizes.render_tokens)
    if group == "markdown":
        from playground.bench.markdown import markdown_figures

        return markdown_figures(sizes.markdown_tokens)
    if group == "image":
        from playground.bench.image import image_figures

        return image_figures(sizes.image_partials)
    if group == "startup":
        from playground.bench.startup import startup_figures

        return startup_figures(sizes.startup_repeat)
    if group == "ui":
        from playground.bench.ui import ui_figures

        return ui_figures(sizes.ui_chunks, sizes.ui_paced_tokens)
    if group == "proxy":
        from playground.bench.proxy import proxy_figures

        return proxy_figures(
            sizes.proxy_events, sizes.proxy_paced, sizes.proxy_repeat, sizes.proxy_rounds
        )
    if group == "session":
        from playground.bench.session import session_figures

        return session_figures(sizes.session_runs, sizes.session_tokens)
    if group == "transcript":
        from playground.bench.transcript import transcript_figures

        return transcript_figures(sizes.transcript_turns)
    if group == "eval":
        from playground.bench.evaluate import eval_figures

        return eval_figures(sizes.eval_cases, sizes.eval_memory_cases)
    if group == "hostile":
        from playground.bench.hostile import hostile_figures

        return hostile_figures(sizes.hostile_bytes)
    raise ValueError(f"unknown group {group!r}")


def _measure_group(group: str, sizes: Sizes) -> dict[str, Value]:
    """One group's figures: a REPEATED group runs ``sizes.repeats`` times and each number is
    the median of its repetitions, with the headline figures' min and max beside it."""
    if group not in REPEATED or sizes.repeats <= 1:
        return _run_group(group, sizes)
    runs = [_run_group(group, sizes) for _ in range(sizes.repeats)]
    out = combine(runs, _group_names(group))
    out[f"{group}_repetitions"] = float(len(runs))
    return out


def combine(runs: Sequence[dict[str, Value]], heads: Sequence[str]) -> dict[str, Value]:
    """The median of each number over ``runs`` (a name any run lacks, or gave as text, keeps the
    first run's text); ``NAME_min`` and ``NAME_max`` for each name in ``heads``."""
    out: dict[str, Value] = {}
    for name in runs[0]:
        values = [run.get(name) for run in runs]
        numbers = sorted(float(v) for v in values if isinstance(v, float | int))
        if len(numbers) != len(runs):
            out[name] = next((v for v in values if isinstance(v, str)), "n/a (not measured)")
            continue
        out[name] = statistics.median(numbers)
        if name in heads:
            out[f"{name}_min"] = numbers[0]
            out[f"{name}_max"] = numbers[-1]
    return out


def _na(reason: str) -> str:
    reason = " ".join(reason.split())[:160] or "failed"
    return f"n/a ({reason})"


def _group_names(group: str) -> list[str]:
    return [f.name for f in FIGURES if f.group == group]


def _in_child(group: str, sizes_name: str, timeout: float) -> dict[str, Value]:
    """Run a Qt group in a fresh interpreter (offscreen); its last stdout line is JSON."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    # The folder holding the playground package (a checkout, or site-packages when installed).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "playground.bench.runner", "--child", group, "--sizes", sizes_name]
    with tempfile.TemporaryDirectory(prefix="playground-bench-") as home:
        # A first run's settings and history, never the user's own.
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[var] = os.path.join(home, var.lower())
        # The playground's own overrides win over XDG: a caller's (a test session's) folders
        # would give the child someone else's history.
        for var in ("PLAYGROUND_DATA_DIR", "PLAYGROUND_SETTINGS"):
            env.pop(var, None)
        # From compiled bytecode, as an installed program runs (pip compiles at install time):
        # where the environment forbids writing it, each module the window imports lazily
        # (during the measured stream, say) would be compiled from source instead.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(home, "pycache")
        packages = [os.path.join(root, "playground")]
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", *packages],
            capture_output=True,
            env=env,
            cwd=root,
            check=False,
            timeout=timeout,
        )
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=root, check=False
            )
        except subprocess.TimeoutExpired:
            return {name: _na(f"timed out after {timeout:.0f} s") for name in _group_names(group)}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode == 0 and lines:
        try:
            result = json.loads(lines[-1])
            if isinstance(result, dict):
                return {str(k): v for k, v in result.items() if isinstance(v, float | int | str)}
        except ValueError:
            pass
    tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    return {name: _na(tail) for name in _group_names(group)}


def measure(
    groups: Sequence[str],
    sizes_name: str,
    progress: Callable[[str], None] | None = None,
    *,
    isolate: bool = True,
) -> dict[str, Value]:
    """Every figure of the chosen groups (and their supporting numbers), never raising."""
    sizes = _SIZES[sizes_name]
    results: dict[str, Value] = {}
    for group in groups:
        if progress:
            progress(group)
        began = time.monotonic()
        if isolate and group in QT_GROUPS:
            got = _in_child(group, sizes_name, sizes.child_timeout)
        else:
            try:
                got = _measure_group(group, sizes)
            except Exception as exc:  # a missing piece or a peer that broke: report, go on
                got = {name: _na(f"{type(exc).__name__}: {exc}") for name in _group_names(group)}
        for name in _group_names(group):
            got.setdefault(name, _na("not measured"))
        got[f"{group}_seconds"] = time.monotonic() - began  # what the group cost this run
        results.update(got)
    return results


_SIZES: dict[str, Sizes] = {"full": FULL, "quick": QUICK, "tiny": TINY}


def format_value(value: Value) -> str:
    if isinstance(value, str):
        return value
    if value == int(value) and abs(value) >= 1000:
        return f"{int(value)}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def lines_of(results: dict[str, Value]) -> list[str]:
    """The machine-readable part: one ``name: value`` line per figure, headline figures first."""
    heads = [f.name for f in FIGURES if f.name in results]
    rest = sorted(k for k in results if k not in heads)
    return [f"{name}: {format_value(results[name])}" for name in heads + rest]


def spread_of(results: dict[str, Value], name: str) -> str:
    """``min-max`` of a repeated figure's repetitions, or "" for a figure measured once."""
    lo, hi = results.get(f"{name}_min"), results.get(f"{name}_max")
    if isinstance(lo, float | int) and isinstance(hi, float | int):
        return f"{format_value(float(lo))}-{format_value(float(hi))}"
    return ""


def table_of(results: dict[str, Value]) -> str:
    """The readable part: headline figures with their spread (repeated ones) and goals."""
    rows = [("figure", "value", "spread", "goal", "met")]
    for fig in FIGURES:
        if fig.name in results:
            value = results[fig.name]
            rows.append(
                (
                    fig.name,
                    format_value(value),
                    spread_of(results, fig.name),
                    fig.goal_text(),
                    fig.met(value),
                )
            )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        out.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="playground bench",
        description="Measure the playground against its peers; prints `name: value`.",
    )
    p.add_argument("--quick", action="store_true", help="smaller sizes, about 3 minutes")
    p.add_argument("--tiny", action="store_true", help="smallest sizes (a smoke test)")
    p.add_argument(
        "--only",
        default="",
        help=(
            f"comma-separated groups: {', '.join(GROUPS)} "
            f"(default: all but {', '.join(_ON_THEIR_OWN)})"
        ),
    )
    p.add_argument("--json", metavar="FILE", help="also write the figures and machine as JSON")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--sizes", default="full", help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `playground bench`; 0 when it ran (whether or not goals were met), 2 on
    bad arguments."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.child:
        # Child side: measure one group, print its figures as one JSON line.
        if args.sizes not in _SIZES:
            return 2
        result = _measure_group(args.child, _SIZES[args.sizes])
        print(json.dumps(result), flush=True)
        return 0
    groups = [g.strip() for g in args.only.split(",") if g.strip()] or list(DEFAULT_GROUPS)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        print(f"playground bench: unknown group(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    sizes_name = "tiny" if args.tiny else "quick" if args.quick else "full"
    started = time.monotonic()

    def progress(group: str) -> None:
        print(f"# measuring {group} ...", file=sys.stderr, flush=True)

    results = measure(groups, sizes_name, progress)
    elapsed = time.monotonic() - started
    for line in lines_of(results):
        print(line)
    print()
    print(table_of(results))
    info = machine()
    print()
    print(f"# {sizes_name} run, {elapsed:.0f} s; " + ", ".join(f"{k} {v}" for k, v in info.items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"figures": results, "machine": info, "sizes": sizes_name}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
