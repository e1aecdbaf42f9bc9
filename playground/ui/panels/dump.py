"""The headless dump of a panel: what its widgets show, as the ``--dump-state`` JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.protocol.projection import state_json

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["dump_panel"]


def dump_panel(panel: RoutePanel, *, pieces: bool = False) -> dict[str, Any]:
    """What ``panel``'s widgets show: the headless contract's JSON (``--dump-state``); on a
    conversational panel also its ``thread`` and ``requests`` (ui/conversation/thread.py).
    ``pieces``: tool calls' arguments left as their text buffers (protocol/json_out.py)."""
    from playground.ui.kit.layout_audit import audit_layout

    window = panel.window()
    shown = {
        "status_line": panel.status_line.text(),
        "layout": audit_layout(window),
        "window": [window.width(), window.height()],
        "transcript": _transcript(panel),
    }
    talk = panel.conversation.dump() if panel.conversation is not None else {}
    if panel.requests is not None:  # the Images panel: its generations and edits
        talk = {"requests": panel.requests}
    from playground.ui.views.structured_view import structured_dump

    return _dump(panel, pieces) | shown | talk | _accounts(panel, talk) | structured_dump(panel)


def _transcript(panel: RoutePanel) -> dict[str, Any] | None:
    """Where the transcript and its turns are (a conversational panel's; None elsewhere)."""
    if panel.transcript is None or panel.conversation is None:
        return None
    from playground.ui.conversation.transcript_dump import transcript_dump

    running = panel.session.is_running
    return transcript_dump(panel.transcript.column, panel.conversation, running=running)


def _accounts(panel: RoutePanel, talk: dict[str, Any]) -> dict[str, Any]:
    """Each request's ``cache`` and ``cost``, the last one's at the top level, and the
    conversation's ``cost_total`` (protocol/accounting/ledger.py); a panel without a
    conversation gets its run's ``cost``."""
    from playground.protocol.accounting.ledger import account_conversation, account_run
    from playground.runs.prices import load_prices

    bar = getattr(panel.window(), "provider_bar", None)
    models = getattr(bar, "model_info", None) or {}
    prices = load_prices().table
    thread = panel.conversation
    if thread is not None:
        return account_conversation(
            panel.route, talk.get("requests") or [], thread.request_facts, models, prices
        )
    state, spec = panel.session.state, panel._last_spec
    body = spec.json_body if spec is not None else None
    model = body.get("model") if isinstance(body, dict) else None
    if state is None or not isinstance(model, str):
        return {"cost": None}
    images = sum(1 for image in state.images if image.final)
    cost = account_run(state.usage, model, models, prices, images=images)
    return {"cost": cost.to_json() if cost is not None else None}


def _dump(panel: RoutePanel, pieces: bool = False) -> dict[str, Any]:
    session = panel.session
    state = session.state
    run = session.run
    decoder = session.decoder
    if state is None or decoder is None:
        # Nothing was sent; a banner (a missing file, no base URL) says why.
        said = panel.said_error()
        return {
            "route": panel.route,
            "status": "failed" if said else "idle",
            "text": "",
            "reasoning": "",
            "tool_calls": [],
            "images": [],
            "audio_seconds": 0.0,
            "timeline_rows": 0,
            "findings": [],
            "usage": None,
            "error": {"status": None, "message": said, "type": "not_sent"} if said else None,
            "answer_html": "",
        }
    error: dict[str, Any] | None = None
    if state.error is not None:
        error = {
            "status": state.error.status
            if state.error.status is not None
            else (run.status if run.status and run.status >= 400 else None),
            "message": state.error.message,
            "type": state.error.type,
            "code": state.error.code,
        }
    audio = state.audio
    answer = panel.widgets.get("answer")
    # The state's one projection (protocol/projection.py; its route is the decoded one, which a
    # replayed raw stream may give on another route's panel), and what only the window knows.
    return state_json(state, pieces=pieces) | {
        "http_status": run.status,
        "audio_seconds": round(audio.seconds, 3) if audio is not None else 0.0,
        "audio_bytes": len(audio.data) if audio is not None else 0,
        "timeline_rows": len(decoder.items),
        "error": error,
        "timing": {
            "headers": run.t_headers,
            "first_byte": run.t_first_byte,
            "first_token": run.t_first_token,
            "end": run.t_end,
        },
        "banner": panel.banner.text if panel.banner.isVisible() or panel.banner.text else "",
        # The answer view's rich text (live Markdown), as QTextDocument.toHtml() gives it.
        "answer_html": answer.html() if answer is not None else "",  # type: ignore[attr-defined]
    }
