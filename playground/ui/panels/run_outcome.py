"""What a run that ended says on its turn: one sentence in the banner (with Retry where it may
help, and Retry-After's countdown), and the partial output kept and marked incomplete."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["show_outcome"]


def show_outcome(panel: RoutePanel, status: str) -> None:
    """Say what happened in one sentence; keep partial output, marked incomplete."""
    run = panel.session.run
    state = panel.session.state
    error = state.error if state is not None else None
    got_output = any(view.has_content() for view in panel.views.values())
    answer_view = panel.views.get("answer")
    if answer_view is not None and status != "complete" and hasattr(answer_view, "set_placeholder"):
        # Its idle hint ("Type a prompt and press Send") would read as if nothing was run.
        answer_view.set_placeholder(f"No answer text arrived: the run ended {status}.")
    if run.status is not None and run.status >= 400:
        from playground.runs.outcome import retry_seconds

        retry_after = retry_seconds(run.retry_after)
        retryable = run.status in (408, 429, 500, 502, 503, 504)
        panel.banner.show_message(
            "error",
            run.http_error or f"HTTP {run.status}",
            retry=retryable,
            retry_after=retry_after,
        )
        return
    if status == "failed":
        message = error.message if error is not None else "the stream failed"
        if run.t_first_byte is None and run.transport_error is not None:
            panel.banner.show_message("error", message, retry=True)
        else:
            kind = f" ({error.type})" if error is not None and error.type else ""
            tail = " The partial output is kept and marked incomplete." if got_output else ""
            panel.banner.show_message(
                "error",
                f"The stream failed after it started{kind}: {message}.{tail}".replace("..", "."),
                retry=True,
            )
    elif status == "truncated":
        why = (
            f" ({run.transport_error.message.rstrip('.')})"
            if run.transport_error is not None
            else ""
        )
        panel.banner.show_message(
            "warning",
            f"Truncated: the stream ended before its terminator{why}. The output is incomplete.",
            retry=True,
        )
    elif status == "cancelled":
        panel.banner.show_message(
            "info", "Cancelled: you stopped this run; the output so far is kept."
        )
    elif status == "incomplete":
        finish = (state.finish if state is not None else None) or "a limit"
        panel.banner.show_message("warning", f"Incomplete: the answer stopped early ({finish}).")
    else:
        panel.banner.clear()
    # The answer view marks itself incomplete; the other routes' widgets get this note.
    answer = panel.views.get("answer")
    marks_itself = answer is not None and answer.has_content()
    if (
        status in ("failed", "truncated", "cancelled", "incomplete")
        and got_output
        and not marks_itself
    ):
        panel.incomplete_note.setText(
            f"Output {status}: what arrived before the end is shown above."
        )
        panel.incomplete_note.show()
