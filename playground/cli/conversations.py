"""`playground conversations list [--json]`: the conversations kept in the data folder."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from playground.cli.usage import OneLineParser, UsageError
from playground.runs.conversations import ConversationStore

__all__ = ["main"]




def _parser() -> OneLineParser:
    parser = OneLineParser(
        prog="playground conversations",
        description="The conversations the window keeps (open one with "
        "`playground --open-conversation ID`, continue it with --prompt).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="the saved conversations, newest first")
    listing.add_argument("--json", action="store_true", help="one JSON array of objects")
    listing.add_argument("--search", default="", help="only those whose turns hold these words")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        print(f"playground conversations: {exc}", file=sys.stderr)
        return 2
    store = ConversationStore()
    rows = store.list(args.search)
    for message in store.messages:  # a damaged file was set aside: say so, list the rest
        print(f"playground conversations: {message}", file=sys.stderr)
    if args.json:
        print(json.dumps([r.as_json() for r in rows], ensure_ascii=False, indent=1))
        return 0
    if not rows:
        print("No saved conversations.")
        return 0
    print(f"{'ID':<30} {'UPDATED':<29} {'ROUTE':<10} {'MODEL':<24} {'TURNS':>5}  TITLE")
    for r in rows:
        print(f"{r.id:<30} {r.updated:<29} {r.route:<10} {r.model:<24} {r.turns:>5}  {r.title}")
    return 0
