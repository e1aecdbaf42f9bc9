"""The price file: each model's prices, ``<data dir>/prices.json``, read safely, written atomically.

Its format is protocol/accounting/prices.py's (``{"format": "playground-prices/1", "currency":
"USD", "models": {model: {field: USD per token}}}``). A file that is not JSON or not in the
format is renamed ``prices.json.corrupt`` (numbered when one is there) and reported in one
sentence; the program goes on with no prices (every cost unknown), never with wrong ones.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from playground.protocol.accounting.models_meta import ModelInfo
from playground.protocol.accounting.prices import (
    ModelPrices,
    PriceTable,
    table_from_json,
    table_to_json,
)
from playground.protocol.safe_json import loads
from playground.runs.atomic import write_json_atomically
from playground.runs.paths import data_dir

__all__ = [
    "MAX_PRICE_FILE",
    "PRICE_FILE",
    "LoadedPrices",
    "export_prices",
    "import_prices",
    "load_prices",
    "price_for",
    "prices_path",
    "read_prices",
    "save_prices",
]

PRICE_FILE = "prices.json"
MAX_PRICE_FILE = 4 * 1024 * 1024  # far above any real table; a bigger file is not read whole


@dataclass
class LoadedPrices:
    table: PriceTable = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)  # one sentence per file set aside


def prices_path(base: Path | None = None) -> Path:
    return (base if base is not None else data_dir()) / PRICE_FILE


def _set_aside(path: Path) -> Path:
    target = path.with_name(path.name + ".corrupt")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{n}.corrupt")
        n += 1
    os.replace(path, target)
    return target


def _read(path: Path) -> PriceTable:
    """``path``'s table; ValueError (one sentence) for a file that is not a price file."""
    with path.open("rb") as file:
        data = file.read(MAX_PRICE_FILE + 1)
    if len(data) > MAX_PRICE_FILE:
        raise ValueError(f"larger than {MAX_PRICE_FILE // (1024 * 1024)} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    return table_from_json(loads(text))


def read_prices(path: Path) -> PriceTable:
    """Another price file's table (to import it); ValueError (one sentence) when it is not one,
    OSError when it cannot be read. Nothing is written."""
    return _read(path)


def load_prices(base: Path | None = None) -> LoadedPrices:
    """The data folder's price table; a corrupt file is set aside with a message."""
    path = prices_path(base)
    out = LoadedPrices()
    if not path.is_file():
        return out
    try:
        out.table = _read(path)
    except OSError as exc:
        out.messages.append(f"The price file {path} could not be read ({exc.strerror}).")
    except ValueError as exc:
        moved = None
        with contextlib.suppress(OSError):
            moved = _set_aside(path)
        where = f"; set aside as {moved.name}" if moved is not None else ""
        out.messages.append(f"The price file {path} is not valid ({exc}){where}.")
    return out


def save_prices(table: PriceTable, base: Path | None = None) -> Path:
    """``table`` written atomically as the data folder's price file."""
    path = prices_path(base)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomically(path, table_to_json(table), prefix=".prices-")
    return path


def export_prices(table: PriceTable, target: Path) -> Path:
    """``table`` written atomically as a price file at ``target`` (to share, or to import)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomically(target, table_to_json(table), prefix=".prices-")
    return target


def import_prices(source: Path, base: Path | None = None, *, merge: bool = True) -> PriceTable:
    """A price file imported into the data folder's (its models replace the same names; with
    ``merge=False`` it replaces the whole table). ValueError/OSError for a file not imported:
    nothing is written then."""
    incoming = _read(source)
    table = dict(load_prices(base).table) if merge else {}
    table.update(incoming)
    save_prices(table, base)
    return table


def price_for(model: str, table: PriceTable, info: ModelInfo | None = None) -> ModelPrices | None:
    """The gateway's prices when its /v1/models gives them, else the price file's, else None."""
    if info is not None and info.prices is not None:
        return info.prices
    return table.get(model)
