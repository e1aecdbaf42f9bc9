"""A reopened run's conversation: the thread its request sent, and its answer once replayed."""

from __future__ import annotations

from typing import TYPE_CHECKING

# Back-reference for the types only: the panel holds the thread (docs/architecture.md).
if TYPE_CHECKING:
    from playground.protocol.capture import Capture
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["restore_thread"]


def restore_thread(panel: RoutePanel, capture: Capture) -> None:
    """Put ``capture``'s conversation back in ``panel``'s thread: the turns its request sent
    (the body is the route's translation of the thread: parse_body reads it back), and, once
    the replay of it just started in ``panel`` has ended, its answer as the last assistant
    turn, as the thread was when the run ended live. A panel without a thread, or a body that
    is no conversation, is left as it is."""
    thread = panel.conversation
    body = (capture.request or {}).get("body")
    if thread is None or not isinstance(body, dict):
        return
    from playground.protocol.conversation.bodies import parse_body

    try:
        pasted = parse_body(body, panel.route)
    except Exception:  # a body that is no conversation of this route: the editor shows it
        return
    session = panel.session
    replayed = session.run  # the replay's run (start_replay has just begun it)
    replaying = replayed.replay and session.is_running
    thread.restore(list(pasted.conversation.turns), replaying=replaying)
    prompt = panel.editor.prompt_box()
    if prompt is not None:
        prompt.setPlainText("")  # the prompt was sent: it is the thread's last user turn
    panel.editor.rebuild()  # the JSON body view: the thread, with an empty prompt
    ended = capture.end is not None
    status = capture.response_status
    if not ended or (status is not None and status >= 400):
        return  # no answer to add: the run was cut short, or refused

    def answered(final: str) -> None:
        session.finished.disconnect(answered)
        run, state, decoder = session.run, session.state, session.decoder
        if run is not replayed or state is None or decoder is None or final == "failed":
            return  # another run took the panel, or the replay found no answer
        from playground.protocol.conversation.answer import assistant_turn

        turn = assistant_turn(state, [decoder.payload(i) for i in range(len(decoder.items))])
        if turn.parts:
            thread.join_answer(turn)
            panel.editor.rebuild()

    if replayed.replay:
        session.finished.connect(answered)
