"""No bare JSON reader on untrusted text: every `json.loads` / `orjson.loads` in playground/ is
`protocol/safe_json.py` (or the simulator's own guard), or is listed here with why it is safe.

Text from the wire or disk goes through `safe_json`: Python's reader raises RecursionError (not
a ValueError) past about 1,000 levels and orjson reads 1,024, deeper than any walk after it can
go. Strings inside generated export code are not calls here (the scan reads the syntax tree).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "playground"

# The readers themselves.
READERS = {"protocol/safe_json.py", "sim/json_depth.py"}

# path (under playground/) -> (how many reads, why each is safe)
ALLOWED: dict[str, tuple[int, str]] = {
    "protocol/stream.py": (
        1,
        "the hot path's parser (orjson), bound once as _loads: every parse of an event's data "
        "follows the depth check (event_json.too_deep, safe_json.exceeds_depth)",
    ),
    "protocol/event_json.py": (
        1,
        "the hot path's parser (orjson), bound once as _loads: loads_long checks the depth "
        "(safe_json.exceeds_depth) of what it parses first",
    ),
    "protocol/fastpath.py": (
        1,
        "the hot path's parser (orjson), bound once as _loads: it parses only JSON strings (a "
        "chunk's text, no nesting) and events already parsed whole after the depth check",
    ),
    "protocol/tool_defs.py": (
        1,
        "after safe_json.exceeds_depth: Python's reader for its messages, which name the line",
    ),
    "protocol/structured.py": (
        1,
        "after safe_json.exceeds_depth: Python's reader for its messages",
    ),
    "desktop_entry.py": (1, "our own output: the manifest this module wrote"),
    "bench/image.py": (1, "our own output: the benchmark reads the simulator it started"),
    "bench/runner.py": (1, "our own output: the last line of a benchmark's own subprocess"),
    "bench/ui.py": (1, "our own output: the simulator's events in a benchmark"),
    "bench/decode.py": (1, "the baseline the decode benchmark measures: json.loads per event"),
}


def _reads(tree: ast.AST) -> int:
    """References to json.loads, json.load or orjson.loads (a call, or bound to a name)."""
    count = 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("loads", "load")
            and isinstance(node.value, ast.Name)
            and node.value.id in ("json", "orjson")
        ):
            count += 1
        elif isinstance(node, ast.ImportFrom) and node.module in ("json", "orjson"):
            count += sum(alias.name in ("loads", "load") for alias in node.names)
    return count


def test_every_json_reader_is_safe_json_or_allowed_with_a_reason() -> None:
    found: Counter[str] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in READERS:
            continue
        reads = _reads(ast.parse(path.read_text(encoding="utf-8")))
        if reads:
            found[name] = reads
    unexpected = {n: c for n, c in found.items() if c > ALLOWED.get(n, (0, ""))[0]}
    assert not unexpected, (
        "bare JSON reads on text that may come from the wire or disk: use "
        f"playground.protocol.safe_json (or allow them here with a reason): {unexpected}"
    )
    stale = {n for n, (c, _why) in ALLOWED.items() if found[n] < c}
    assert not stale, f"allowed reads that are gone: lower or drop their entries: {stale}"
    assert all(reason.strip() for _, reason in ALLOWED.values())


def test_the_scan_finds_a_bare_read() -> None:
    assert _reads(ast.parse("import json\nvalue = json.loads(text)\n")) == 1
    assert _reads(ast.parse("from orjson import loads\n")) == 1
    assert _reads(ast.parse("code = 'event = json.loads(line)'\n")) == 0
