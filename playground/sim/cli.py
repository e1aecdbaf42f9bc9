"""`playground sim [--host H] [--port N] [--replay CAPTURE]`: serve the simulator until Ctrl+C."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys
import threading
from collections.abc import Sequence

from playground.sim.fault_names import FAULTS, REPLAY_FAULTS


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="playground sim",
        description="Serve the built-in gateway simulator: every route streamed, faults on demand.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--pace",
        default=None,
        help="default pace when a request sends no X-Sim-Pace: realtime, fast, instant or ms/token",
    )
    parser.add_argument(
        "--fault",
        default=None,
        choices=list(dict.fromkeys((*FAULTS, *REPLAY_FAULTS))),
        metavar="FAULT",
        help="default fault when a request sends no X-Sim-Fault (see docs/simulator.md)",
    )
    parser.add_argument(
        "--replay",
        default=None,
        metavar="CAPTURE",
        help="serve this capture's answer, with its recorded timing, to any request on its route",
    )
    parser.add_argument(
        "--speed", type=float, default=1.0, help="--replay: timing divided by S (0: at once)"
    )
    parser.add_argument(
        "--cache-ttl",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the prompt cache's lifetime (default 300; /v1/models says it)",
    )
    parser.add_argument(
        "--cache-min-tokens",
        type=int,
        default=None,
        metavar="N",
        help="the shortest prefix the prompt cache keeps (default 64 tokens)",
    )
    args = parser.parse_args(list(argv))
    if args.cache_ttl is not None and not 0 <= args.cache_ttl <= 86400:
        parser.error("--cache-ttl must be 0-86400 seconds")
    if args.cache_min_tokens is not None and args.cache_min_tokens < 0:
        parser.error("--cache-min-tokens must be 0 or more")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be 0-65535")
    app = None
    if args.replay is not None:
        from playground.sim.replay import load_replay

        app, problem = load_replay(args.replay, args.speed, args.fault or "none")
        if problem:
            parser.error(problem)
    elif args.fault not in (None, *FAULTS):
        parser.error(f"--fault {args.fault} applies to --replay only")
    if not is_loopback(args.host):
        print(
            f"warning: binding the simulator to {args.host}: anyone who can reach this address "
            "can use it (it accepts any key or none).",
            file=sys.stderr,
        )
    from playground.sim.server import SimServer

    try:
        server = SimServer(
            args.host,
            args.port,
            pace=args.pace,
            fault=args.fault,
            app=app,
            cache_ttl=args.cache_ttl,
            cache_min_tokens=args.cache_min_tokens,
        ).start()
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    print(server.base_url, flush=True)

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM stops it as cleanly as Ctrl+C

    signal.signal(signal.SIGTERM, _terminate)
    print("Faults: header X-Sim-Fault; pace: X-Sim-Pace. Ctrl+C stops.", file=sys.stderr)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
