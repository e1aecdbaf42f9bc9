"""The price table the window prices with: the data folder's price file, read again only when
the file changed (Settings saved it, an import, another process), so a saved price is used by
the next figure shown and an unchanged file is not parsed once per run."""

from __future__ import annotations

import contextlib
from pathlib import Path

from playground.protocol.accounting.prices import PriceTable

__all__ = ["current_prices", "forget_prices"]

_seen: dict[Path, tuple[tuple[int, int] | None, PriceTable]] = {}


def _stamp(path: Path) -> tuple[int, int] | None:
    with contextlib.suppress(OSError):
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size)
    return None


def current_prices(base: Path | None = None) -> PriceTable:
    """The data folder's table (empty without a file; a corrupt file is set aside by
    runs/prices.py and gives no prices)."""
    from playground.runs.prices import load_prices, prices_path

    path = prices_path(base)
    stamp = _stamp(path)
    known = _seen.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    table = load_prices(base).table if stamp is not None else {}
    _seen[path] = (_stamp(path), table)
    return table


def forget_prices() -> None:
    """Read the file again next time (a save within the file system's time resolution)."""
    _seen.clear()
