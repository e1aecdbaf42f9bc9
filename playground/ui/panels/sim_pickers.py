"""The simulator's pickers on a route panel (fault, pace, answer length): shown while the provider
is the simulator, and the request headers only the simulator reads (X-Sim-Fault, X-Sim-Pace,
X-Sim-Tokens, X-Sim-Stall-Seconds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLabel

    from playground.ui.runtime.session import StreamSession

__all__ = ["LENGTH_ROUTES", "PACES", "SIM_LENGTHS", "SimPickers"]

PACES = ("realtime", "fast", "instant")
# The simulator's answer lengths (X-Sim-Tokens) offered beside its pace; None: its natural one.
SIM_LENGTHS: tuple[tuple[str, int | None], ...] = (
    ("any length", None),
    ("100 tokens", 100),
    ("1k tokens", 1000),
    ("4k tokens", 4000),
    ("16k tokens", 16000),
)
LENGTH_ROUTES = frozenset({"chat", "responses", "messages"})  # the routes whose answer is text


class SimPickers:
    """The pickers' part of ``RoutePanel``, which builds them (the attributes are its own)."""

    route: str
    session: StreamSession
    on_simulator: bool
    fault: QComboBox
    fault_label: QLabel
    pace: QComboBox
    length: QComboBox

    def set_on_simulator(self, on: bool) -> None:
        self.on_simulator = on
        self.fault.setVisible(on)
        self.fault_label.setVisible(on)
        self.pace.setVisible(on)
        self.length.setVisible(on and self.route in LENGTH_ROUTES)

    def current_fault(self) -> str | None:
        fault = self.fault.currentData()
        return fault if self.on_simulator and fault and fault != "none" else None

    def sim_headers(self) -> dict[str, str]:
        """The simulator's own request headers from the fault, pace and length pickers."""
        headers = {"X-Sim-Pace": str(self.pace.currentData() or "realtime")}
        fault = self.current_fault()
        if fault:
            headers["X-Sim-Fault"] = fault
        tokens = self.length.currentData() if self.route in LENGTH_ROUTES else None
        if isinstance(tokens, int):
            headers["X-Sim-Tokens"] = str(tokens)
        if fault == "stall" and self.session.stall_seconds > 0:
            # The simulator's own pause (3 s) is shorter than the stall setting (10 s): choosing
            # "stall" would show no banner. It pauses past the setting instead, so it does.
            headers["X-Sim-Stall-Seconds"] = f"{self.session.stall_seconds + 2:g}"
        return headers

    def set_pace(self, pace: str) -> None:
        i = self.pace.findData(pace)
        if i < 0:
            self.pace.addItem(pace, pace)
            i = self.pace.count() - 1
        self.pace.setCurrentIndex(i)

    def set_sim_tokens(self, tokens: int | None) -> None:
        """The simulator's answer length in tokens (None: its natural length)."""
        i = self.length.findData(tokens)
        if i < 0 and tokens is not None:
            title = f"{tokens // 1000}k tokens" if tokens % 1000 == 0 else f"{tokens} tokens"
            self.length.addItem(title, tokens)
            i = self.length.count() - 1
        self.length.setCurrentIndex(max(0, i))

    def set_fault(self, fault: str) -> None:
        i = self.fault.findData(fault)
        if i < 0:
            self.fault.addItem(fault, fault)
            i = self.fault.count() - 1
        self.fault.setCurrentIndex(i)
