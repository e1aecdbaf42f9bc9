"""Entry point: the window by default; subcommands inspect, sim, bench and export."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

# Each subcommand is imported only when asked for, so `playground inspect` never pays for Qt
# and the window never pays for the simulator's or the benchmarks' imports before its first frame.
_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("playground.cli.inspect", "main"),
    "sim": ("playground.sim.cli", "main"),
    "bench": ("benchmarks.runner", "main"),
    "export": ("playground.cli.export", "main"),
}


def _load(module: str, name: str) -> Callable[[Sequence[str]], int]:
    import importlib

    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in _SUBCOMMANDS:
        module, name = _SUBCOMMANDS[args[0]]
        return _load(module, name)(args[1:])
    return _load("playground.ui.app", "main")(args)


if __name__ == "__main__":
    sys.exit(main())
