"""The simulator's fault names, in a module of their own so the window can list them cheaply."""

from __future__ import annotations

__all__ = ["FAULTS", "FAULT_ROUTES", "REPLAY_FAULTS", "faults_for"]

# Chosen per request by the `X-Sim-Fault` header (docs/simulator.md). Importing this module
# pulls in nothing else: the window shows the list before the simulator (starlette) is loaded.
FAULTS: tuple[str, ...] = (
    "none",
    "http-400",
    "http-401",
    "http-403",
    "http-404",
    "http-408",
    "http-413",
    "http-422",
    "http-429",
    "http-500",
    "http-502",
    "http-503",
    "http-504",
    "no-key",
    "non-json-error",
    "empty-error",
    "json-instead-of-stream",
    "midstream-error",
    "incomplete",
    "drop",
    "stall",
    "bad-json",
    "unknown-events",
    "huge-line",
    "garbage",
    "out-of-order",
    "after-terminator",
    "no-cache-usage",
)

# The routes a fault acts on, for the faults that do not act on every route: the one place that
# says so (a picker offers a fault only where it does something). "incomplete" is a finish for
# length, which only the text routes' grammars have; "out-of-order" sends opening frames after
# the first content, and the image and audio routes send no opening frames to move.
FAULT_ROUTES: dict[str, tuple[str, ...]] = {
    "incomplete": ("chat", "responses", "messages"),
    "out-of-order": ("chat", "responses", "messages", "music"),
}


def faults_for(route: str) -> tuple[str, ...]:
    """The faults that act on ``route``, in ``FAULTS`` order."""
    return tuple(f for f in FAULTS if route in FAULT_ROUTES.get(f, (route,)))


# The faults `sim --replay` applies to a recorded body (replay_faults.py): those that damage bytes
# or answer before the stream, and "split-utf8" (every multi-byte character cut across reads),
# which only a replay has: the live routes write each event whole.
REPLAY_FAULTS: tuple[str, ...] = (
    *(f for f in FAULTS if f.startswith("http-")),
    "none",
    "no-key",
    "non-json-error",
    "empty-error",
    "midstream-error",
    "drop",
    "stall",
    "bad-json",
    "unknown-events",
    "garbage",
    "after-terminator",
    "split-utf8",
)
