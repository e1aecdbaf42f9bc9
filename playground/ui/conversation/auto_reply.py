"""Canned tool results: which calls a thread answers by itself, and answering them once a run
has ended (the headless ``--tool-result`` and the Tools list's Auto-reply share this path)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from playground.ui.runtime import lazy

if TYPE_CHECKING:
    import asyncio

    from playground.ui.conversation.thread import ConversationThread

__all__ = ["MAX_AUTO_ROUNDS", "answer_when_ended", "auto_answer", "canned"]

# Auto-reply stops after this many answered rounds in a row without a user turn: a model that
# keeps calling its tools must not spend a gateway's tokens until someone notices (its result
# editors are still there, prefilled). The headless --tool-result has no such limit (its run is
# watched by whoever started it, and its contract is to answer every call).
MAX_AUTO_ROUNDS = 10
_PENDING: set[asyncio.Task[None]] = set()


def canned(thread: ConversationThread, *, auto: bool = False) -> dict[str, str]:
    """Tool name -> canned result: the Tools list's (with ``auto``, only while Auto-reply is
    on), and the headless ``--tool-result`` ones over them."""
    tools = thread.panel.editor.tools_list()
    listed = tools.canned_results() if tools is not None else {}
    if auto and (tools is None or not tools.auto_reply.isChecked()):
        listed = {}
    return listed | thread.auto_results


def auto_answer(thread: ConversationThread, *, limit: int | None = None) -> bool:
    """Send the canned results if every open call has one (True); a call without one keeps
    its result editor, and nothing goes until it is answered too (parallel calls go together)."""
    calls = thread.conversation().open_calls
    results = canned(thread, auto=True)
    if not calls or thread.panel.session.is_running:
        return False
    if not all(c.name in results for c in calls):
        return False
    if limit is not None and _rounds_since_user(thread) >= limit:
        return False
    thread.send_results([(c.id, results[c.name]) for c in calls])
    return True


def answer_when_ended(thread: ConversationThread, status: str) -> None:
    """After a run that ended ``status``: answer its calls once its task is over (the session
    is still finishing it while its ``finished`` signal is delivered)."""
    loop = lazy.running_loop()
    if status not in ("complete", "incomplete") or loop is None or not canned(thread, auto=True):
        return
    ref = weakref.ref(thread)

    session = thread.panel.session

    async def answer() -> None:
        await session.wait()
        target = ref()
        if target is not None:
            auto_answer(target, limit=MAX_AUTO_ROUNDS)

    task = lazy.run_soon(answer())
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


def _rounds_since_user(thread: ConversationThread) -> int:
    rounds = 0
    for turn in reversed(thread.turns):
        if turn.role == "user":
            break
        rounds += turn.role == "tool"
    return rounds
