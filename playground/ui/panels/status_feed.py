"""What a panel says of its session's progress: the status line, and the stall banner."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from playground.ui.panels.status_line import SILENCE_SHOWN_AFTER

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["finding_counts", "show_stall", "update_status"]


def finding_counts(panel: RoutePanel) -> tuple[int, int]:
    """The run's (errors, warnings): each finding at the severity its code declares, the one the
    inspector shows it with. A completed stream with errors reads red, with warnings amber."""
    state = panel.session.state
    if state is None:
        return 0, 0
    errors = sum(1 for f in state.findings if f.severity == "error")
    return errors, sum(1 for f in state.findings if f.severity == "warning")


def update_status(panel: RoutePanel) -> None:
    """Put the session's status and figures on the panel's status line (once per frame/tick)."""
    session = panel.session
    run = session.run
    state = session.state
    if state is None:
        return
    from playground.runs.outcome import tokens_per_second  # loaded by then: the run has begun

    running = session.is_running and state.status == "streaming"
    note = ""
    if running:
        status = "streaming" if run.t_first_byte is not None else "connecting"
        # The watchdog's banner comes at the configured stall time; before it, from the
        # second second of silence on, the line counts it so a pause is never mistaken for
        # a slow model (the tick runs every 100 ms, so the count moves each second).
        silent = session.silent_seconds
        if silent >= SILENCE_SHOWN_AFTER:
            note = f"no bytes for {int(silent)} s"
    else:
        status = state.status
    line = panel.status_line
    errors, warnings = finding_counts(panel)
    line.set_status(status, warnings=warnings, errors=errors, note=note)
    end = (
        run.t_end
        if run.t_end is not None
        else (time.perf_counter() - panel.clock0 if running else run.t_last_byte)
    )
    line.set_figures(
        http_status=run.status,
        ttfb=run.t_first_byte,
        ttft=run.t_first_token,
        tokens_per_s=tokens_per_second(state, run.t_first_token, run.t_last_byte)
        if panel.layout_of.text_rates  # tokens per second mean little for audio or images
        else None,
        elapsed=end,
        usage=state.usage,
    )


def show_stall(panel: RoutePanel, seconds: float) -> None:
    """The watchdog's word: ``seconds`` of silence at the stall setting (0: bytes came again)."""
    banner = panel.banner
    if seconds <= 0:
        if banner.kind == "stall":
            banner.clear()
        return
    if banner.kind in ("", "stall"):
        banner.show_message(
            "warning",
            f"No bytes for {seconds:.0f} s: the server may have stalled. The stream is still open.",
            stop=True,
        )
        banner.kind = "stall"
