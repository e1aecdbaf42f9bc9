"""The subcommands' argument parser: a usage error is one line on stderr and exit 2."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["OneLineParser", "UsageError"]


class UsageError(Exception):
    """The command line is wrong; its message is the one line to print."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error raises ``UsageError`` instead of printing the usage and
    exiting, so each subcommand prints one line and exits 2 (docs/design.md CLI contract)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)
