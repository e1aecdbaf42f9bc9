"""A run's request as code that runs as written: curl, Python (openai / anthropic SDK), Node.

One module per target (curl, python, typescript); common reads the captured request once. Every
target takes the key and the base URL from environment variables (never the key's value) and
drops the simulator's X-Sim-* headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playground.runs.export.common import BASE_URL_VAR, ExportError
from playground.runs.export.curl import to_curl
from playground.runs.export.python import to_python
from playground.runs.export.typescript import to_typescript

__all__ = [
    "BASE_URL_VAR",
    "FORMATS",
    "ExportError",
    "export_request",
    "to_curl",
    "to_python",
    "to_typescript",
]

FORMATS = ("curl", "python", "typescript")


def export_request(request: Mapping[str, Any], route: str, fmt: str) -> str:
    """The request of a run in ``fmt`` (curl, python or typescript)."""
    builders = {"curl": to_curl, "python": to_python, "typescript": to_typescript}
    if fmt not in builders:
        raise ExportError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return builders[fmt](request, route)
