"""`playground export FILE --as curl|python|typescript`: a captured run's request as code."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playground.cli.usage import OneLineParser, UsageError
from playground.protocol.capture import read_capture
from playground.runs.export import FORMATS, ExportError, export_request
from playground.runs.journal import JournalError, read_journal

__all__ = ["main"]




def _parser() -> OneLineParser:
    parser = OneLineParser(
        prog="playground export",
        description="Print a captured run's request as curl, Python or TypeScript (a Node ES "
        "module) that runs as written. The API key is an environment variable reference, never "
        "its value; PLAYGROUND_BASE_URL overrides the base URL (default: the run's).",
    )
    parser.add_argument("file", help="a playground capture file (.jsonl)")
    parser.add_argument("--as", dest="fmt", choices=FORMATS, default="curl", help="output language")
    parser.add_argument("--route", default=None, help="override the route recorded in the capture")
    return parser


def _read_request(path: Path) -> tuple[str, dict[str, Any] | None]:
    """(route, request) from a capture: read leniently, strictly only to say what is wrong."""
    try:
        capture = read_capture(path)
    except Exception:
        capture = None  # the strict reader below says what is wrong in one line
    if capture is not None and (capture.raw or capture.request is not None):
        return capture.route or "auto", capture.request
    journal = read_journal(path)
    return journal.route or "auto", journal.request or None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        print(f"playground export: {exc}", file=sys.stderr)
        return 2
    path = Path(args.file)
    if not path.is_file():
        print(f"playground export: {path} is not a readable file", file=sys.stderr)
        return 2
    try:
        route, request = _read_request(path)
    except JournalError as exc:
        print(f"playground export: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # any unreadable file is one line, never a traceback
        print(f"playground export: {path} cannot be read ({type(exc).__name__})", file=sys.stderr)
        return 2
    if not request or not request.get("url"):
        print(
            f"playground export: {path} holds no request (raw `curl -N` output?); "
            "export needs a playground capture",
            file=sys.stderr,
        )
        return 2
    route = args.route or route
    try:
        code = export_request(request, route, args.fmt)
    except (ExportError, ValueError) as exc:
        print(f"playground export: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(code)
    return 0
