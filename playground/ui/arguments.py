"""The window's command line: its options, their defaults, and the checks that end in UsageError."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from playground.protocol import safe_json
from playground.protocol.routes import ROUTE_NAMES as ROUTES
from playground.ui.conversation.headless import DEFAULTS as HEADLESS_DEFAULTS
from playground.ui.conversation.headless import add_arguments as add_conversation_arguments
from playground.ui.conversation.headless import check_arguments as check_conversation_arguments

__all__ = ["UsageError", "parse_args"]


class UsageError(Exception):
    """Bad command-line arguments: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# Every option's value when none is given, stated once: the parser takes them as its defaults,
# and a start with no arguments uses them without building the parser.
_DEFAULTS: dict[str, Any] = {
    "file": None,
    "route": None,
    "prompt": None,
    "model": None,
    "provider": None,
    "fault": None,
    "body": None,
    "pace": None,
    "screenshot": None,
    "dump_state": None,
    "dump_during": None,
    "exit_when_done": False,
    "save_capture": None,
    "replay": None,
    "speed": 0.0,
    "timeout": 120.0,
    "quit_after": None,
    "size": None,
    "proxy": None,
    "proxy_port": 0,
    "preset": None,
    "open_conversation": None,
} | HEADLESS_DEFAULTS


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="playground",
        description="The playground window. With --route, a headless run (see --exit-when-done).",
        epilog="Also: playground --version | --install-desktop-entry | --uninstall-desktop-entry, "
        "and the subcommands inspect, sim, export, bench and conversations.",
        add_help=True,
    )
    p.add_argument("file", nargs="?", help="a capture (or raw `curl -N` output) to open")
    p.add_argument(
        "--route", choices=ROUTES, help="send on this route's panel as soon as the window opens"
    )
    p.add_argument(
        "--prompt",
        action="append",
        help="the prompt (speech: the text; transcription: an audio file path); on chat, "
        "responses and messages repeatable: each a user turn sent after the previous answer",
    )
    p.add_argument("--model", help="the model name")
    p.add_argument("--provider", help="a provider profile id (default: the remembered one)")
    p.add_argument("--fault", help="a simulator fault (X-Sim-Fault), e.g. midstream-error")
    p.add_argument(
        "--body", metavar="JSON", help="JSON merged into the request body, e.g. '{\"n\": 2}'"
    )
    p.add_argument("--pace", help="simulator pace: realtime, fast, instant or N (ms per token)")
    p.add_argument("--screenshot", metavar="PNG", help="save a screenshot of the whole window")
    p.add_argument("--dump-state", metavar="JSON", help="write what the panel shows as JSON")
    p.add_argument(
        "--dump-during",
        metavar="MS:FILE",
        help="also write the dump MS milliseconds after the first token, while it streams",
    )
    p.add_argument("--exit-when-done", action="store_true", help="exit once the stream has ended")
    p.add_argument("--save-capture", metavar="FILE", help="write the run's capture file")
    p.add_argument("--replay", metavar="FILE", help="replay a capture instead of sending")
    p.add_argument("--speed", type=float, help="replay speed (0 = instant)")
    p.add_argument("--timeout", type=float, help="give up a headless run after N seconds")
    p.add_argument(
        "--quit-after",
        type=float,
        metavar="S",
        help="close the window after S seconds (demos, tests)",
    )
    p.add_argument("--size", help="window size WxH; the screenshot is exactly W×H pixels")
    p.add_argument(
        "--proxy",
        metavar="URL",
        help="record another app's traffic: a proxy on 127.0.0.1 in front of URL (Traffic panel)",
    )
    p.add_argument("--proxy-port", type=int, metavar="N", help="the proxy's port (default: free)")
    p.add_argument("--preset", metavar="NAME", help="open a saved preset first (its route)")
    p.add_argument(
        "--open-conversation",
        metavar="ID",
        help="open a saved conversation (`playground conversations list`) in its route's panel; "
        "with --prompt, continue it",
    )
    add_conversation_arguments(p)
    p.set_defaults(**_DEFAULTS)
    return p


def _saved_conversation(conversation_id: str, route: str | None) -> Any:
    """The kept conversation ``conversation_id`` (runs/conversations.py), on ``route`` if given."""
    from playground.runs.conversations import ConversationError, ConversationStore

    store = ConversationStore()
    try:
        saved = store.load(conversation_id)
    except ConversationError as exc:
        raise UsageError(f"--open-conversation: {exc}") from None
    if route is not None and route != saved.route:
        raise UsageError(
            f"--open-conversation {conversation_id} is a {saved.route} conversation, not {route}"
        )
    return saved


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse and check the arguments; UsageError (one line) for anything wrong."""
    argv = list(argv)
    # The usual start has no arguments: argparse's set-up (its gettext look-ups load the locale
    # module) is a few milliseconds of the time to a first frame with nothing to parse.
    args = _parser().parse_args(argv) if argv else argparse.Namespace(**_DEFAULTS)
    if args.fault:
        from playground.sim.fault_names import FAULTS

        if args.fault not in FAULTS:
            raise UsageError(f"unknown fault {args.fault!r}; expected one of {', '.join(FAULTS)}")
    if args.body is not None:
        try:
            args.body = safe_json.loads(args.body)
        except ValueError as exc:
            raise UsageError(f"--body is not valid JSON: {exc}") from None
        if not isinstance(args.body, dict):
            raise UsageError("--body must be a JSON object")
    if args.preset:
        from playground.runs.presets import headless_route

        try:
            args.route = headless_route(args.preset, args.route)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.open_conversation:
        args.open_conversation = _saved_conversation(args.open_conversation, args.route)
        args.route = args.open_conversation.route
    try:
        check_conversation_arguments(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.speed < 0:
        raise UsageError("--speed must be 0 (instant) or more")
    for name in ("file", "replay"):
        value = getattr(args, name)
        if value and not Path(value).is_file():
            raise UsageError(f"{value}: no such file")
    if args.route is None and args.replay is None and (args.prompt or args.fault):
        raise UsageError("--prompt and --fault need --route")
    if args.fault and args.route:
        from playground.sim.fault_names import faults_for

        if args.fault not in faults_for(args.route):  # it would do nothing there
            raise UsageError(f"the fault {args.fault!r} does not act on the {args.route} route")
    args.size_given = args.size is not None
    try:
        w, h = (int(x) for x in (args.size or "1560x920").lower().split("x"))
        if w < 200 or h < 150:
            raise ValueError
        args.size = (w, h)
    except ValueError:
        raise UsageError(f"--size {args.size!r}: expected WxH, e.g. 1560x920") from None
    if args.proxy and not args.proxy.startswith(("http://", "https://")):
        raise UsageError(f"--proxy {args.proxy!r}: expected an http:// or https:// URL")
    if not 0 <= args.proxy_port <= 65535:
        raise UsageError("--proxy-port must be 0 (any free port) to 65535")
    if args.dump_during is not None:
        ms, sep, target = str(args.dump_during).partition(":")
        if not sep or not target or not ms.strip().isdigit():
            raise UsageError(
                f"--dump-during {args.dump_during!r}: expected MS:FILE, e.g. 500:dump.json"
            )
        args.dump_during = (int(ms), target)
    if args.provider:
        from playground.transport.providers import PROVIDERS

        known = [p.id for p in PROVIDERS]
        if args.provider not in known:
            raise UsageError(
                f"unknown provider {args.provider!r}; expected one of {', '.join(known)}"
            )
    return args
