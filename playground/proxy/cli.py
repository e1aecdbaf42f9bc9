"""`playground proxy --upstream URL [--host H] [--port N] [--save DIR]`: relay and report."""

from __future__ import annotations

import argparse
import ipaddress
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from playground.proxy.exchange import Exchange, ExchangeHub, Listener
from playground.proxy.verdict import Verdicts
from playground.proxy.wire import valid_upstream

__all__ = ["Printer", "build_hub", "is_loopback", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2 (as `playground inspect`)."""

    def error(self, message: str) -> NoReturn:
        print(f"playground proxy: {message}", file=sys.stderr)
        raise SystemExit(2)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Printer(Listener):
    """One JSON line per finished exchange on ``out`` (the keys of ``verdict.summary_keys``)."""

    def __init__(self, verdicts: Verdicts, out: TextIO) -> None:
        self.verdicts = verdicts
        self.out = out
        self._lock = threading.Lock()

    def on_end(self, ex: Exchange) -> None:
        line = self.verdicts.summary(ex)
        if line is None:
            return
        with self._lock:
            self.out.write(json.dumps(line) + "\n")
            self.out.flush()


def build_hub(save: Path | None, out: TextIO | None) -> tuple[ExchangeHub, Verdicts]:
    """The command's listeners, in the order they must hear each step: the decoder's verdict
    first (the capture's end line and the printed line read it), the captures, the printer."""
    from playground.proxy.accounts import ExchangeAccounts
    from playground.runs.prices import load_prices

    loaded = load_prices()
    for message in loaded.messages:
        print(f"proxy: {message}", file=sys.stderr, flush=True)
    accounts = ExchangeAccounts(loaded.table)
    verdicts = Verdicts(accounts)
    # The accounts learn a models list passing through before the verdict prices with it.
    hub = ExchangeHub(accounts, verdicts)
    if save is not None:
        from playground.proxy.recorder import Recorder

        hub.subscribe(Recorder(save, verdicts.status))
    if out is not None:
        hub.subscribe(Printer(verdicts, out))
    return hub, verdicts


def _parser() -> _Parser:
    parser = _Parser(
        prog="playground proxy",
        description="Relay every request under /v1 to a gateway, streaming, and print one JSON "
        "line per exchange (its route, status, events, findings and timing).",
    )
    parser.add_argument(
        "--upstream", required=True, metavar="URL", help="the gateway's base URL (…/v1)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--save", type=Path, default=None, metavar="DIR", help="write a capture per exchange here"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    upstream = str(args.upstream).rstrip("/")
    problem = valid_upstream(upstream)
    if problem is not None:
        print(f"playground proxy: --upstream is {problem}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print("playground proxy: --port must be 0-65535", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(
            f"warning: binding the proxy to {args.host}: anyone who can reach this address can "
            f"send requests to {upstream} with the keys their clients send.",
            file=sys.stderr,
        )
    if args.save is not None:
        try:
            args.save.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"playground proxy: cannot create {args.save}: {exc.strerror}", file=sys.stderr)
            return 2
    from playground.proxy.server import ProxyServer

    hub, verdicts = build_hub(args.save, sys.stdout)
    if verdicts.accounts is not None:  # the gateway's cache lifetime, minimum and prices
        verdicts.accounts.load_models(upstream)
    try:
        server = ProxyServer(upstream, hub, args.host, args.port).start()
    except OSError as exc:
        print(
            f"playground proxy: cannot listen on {args.host}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    print(f"proxy: {server.base_url} -> {upstream}", flush=True)

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM stops it as cleanly as Ctrl+C

    signal.signal(signal.SIGTERM, _terminate)
    print("Ctrl+C stops.", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
