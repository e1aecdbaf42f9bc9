"""Entry point: the window by default; subcommands inspect, sim, proxy, bench, export, eval and
conversations; --version and the launcher entry's --install-desktop-entry /
--uninstall-desktop-entry."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

# Each subcommand is imported only when asked for, so `playground inspect` never pays for Qt
# and the window never pays for the simulator's or the benchmarks' imports before its first frame.
_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("playground.cli.inspect", "main"),
    "sim": ("playground.sim.cli", "main"),
    "proxy": ("playground.proxy.cli", "main"),
    "bench": ("playground.bench.runner", "main"),
    "export": ("playground.cli.export", "main"),
    "eval": ("playground.cli.eval", "main"),
    "conversations": ("playground.cli.conversations", "main"),
    "--install-desktop-entry": ("playground.desktop_entry", "main"),
    "--uninstall-desktop-entry": ("playground.desktop_entry", "main"),
}


def _load(module: str, name: str) -> Callable[[Sequence[str]], int]:
    import importlib

    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("playground")
    except PackageNotFoundError:  # a source tree on PYTHONPATH, never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(f"playground {version()}")
        return 0
    if args and args[0] in _SUBCOMMANDS:
        module, name = _SUBCOMMANDS[args[0]]
        # A flag-like command gets its own name (it serves two); a subcommand its arguments.
        return _load(module, name)(args if args[0].startswith("--") else args[1:])
    return _load("playground.ui.app", "main")(args)


if __name__ == "__main__":
    sys.exit(main())
