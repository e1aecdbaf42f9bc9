"""The headless conversation options: several ``--prompt`` turns, ``--conversation FILE``,
``--tool-result NAME=JSON`` and ``--attach FILE``, checked, put on a panel, and run in turn."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation, Image
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["DEFAULTS", "add_arguments", "check_arguments", "converse", "prepare"]

DEFAULTS: dict[str, Any] = {"conversation": None, "tool_result": None, "attach": None}

# The window's entry point reads these options on every start, most often with none given: the
# conversation model (its frozen dataclasses, ~11 ms to import) loads only when one of them is.


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--conversation",
        metavar="FILE",
        help='earlier turns: {"system"?, "messages": [...]} in chat completions\' shape',
    )
    p.add_argument(
        "--tool-result",
        metavar="NAME=JSON",
        action="append",
        help="answer every call of tool NAME with JSON and go on (repeatable)",
    )
    p.add_argument(
        "--attach",
        metavar="FILE",
        action="append",
        help="an image (PNG, JPEG, WebP, GIF) on the last user turn (repeatable); on "
        "--route images the input image of an edit (a second one: its mask)",
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Read and check the options in place; ValueError (one sentence) for anything wrong.

    ``--prompt`` may be repeated: ``args.prompts`` holds them all, ``args.prompt`` the first."""
    from playground.protocol import safe_json

    prompts = (
        args.prompt
        if isinstance(args.prompt, list)
        else []
        if args.prompt is None
        else [args.prompt]
    )
    args.prompts = prompts
    args.prompt = prompts[0] if prompts else None
    if args.conversation is not None and not _is_conversation(args.conversation):
        from playground.protocol.conversation.bodies import conversation_file

        try:
            from playground.protocol import safe_json

            # The user's own file, but any text: too deep or not JSON is one sentence, no trace.
            data = safe_json.loads(Path(args.conversation).read_text(encoding="utf-8"))
            args.conversation = conversation_file(data)
        except OSError as exc:
            raise ValueError(f"--conversation {args.conversation}: {exc.strerror}") from None
        except ValueError as exc:
            raise ValueError(f"--conversation {args.conversation}: {exc}") from None
    results: dict[str, str] = {}
    for item in args.tool_result or []:
        name, sep, text = str(item).partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--tool-result {item!r}: expected NAME=JSON")
        try:
            safe_json.loads(text)
        except ValueError as exc:
            raise ValueError(f"--tool-result {name}: not valid JSON ({exc})") from None
        results[name.strip()] = text
    args.tool_results = results
    images: list[Image] = []
    for path in args.attach or []:
        from playground.protocol.conversation.model import Image
        from playground.protocol.media import image_mime

        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise ValueError(f"--attach {path}: {exc.strerror}") from None
        mime = image_mime(data)
        if mime is None:
            raise ValueError(f"--attach {path}: not a PNG, JPEG, WebP or GIF image")
        images.append(Image(mime, data))
    args.images = images
    talk = ("chat", "responses", "messages")
    if (prompts[1:] or args.conversation or results) and args.route not in talk:
        raise ValueError(
            "several --prompt, --conversation and --tool-result need --route chat, "
            "responses or messages"
        )
    if images and args.route not in (*talk, "images"):
        raise ValueError("--attach needs --route chat, responses, messages or images")
    if args.route == "images" and len(images) > 2:
        raise ValueError("--attach on images takes the input image and at most one mask")


def _is_conversation(value: object) -> bool:
    from playground.protocol.conversation.model import Conversation

    return isinstance(value, Conversation)


def prepare(panel: RoutePanel, args: argparse.Namespace) -> None:
    """Put the file's turns, the canned tool results and the images on ``panel`` (on Images,
    the first image is the edit's input and a second its mask)."""
    if panel.route == "images" and args.images:
        panel.editor.image_input.set_images(args.images)
    thread = panel.conversation
    if thread is None:
        return
    thread.auto_results = dict(args.tool_results)
    conversation: Conversation | None = args.conversation
    if conversation is not None:
        if conversation.system is not None:
            panel.editor.system.setPlainText(conversation.system)
        thread.turns = list(conversation.turns)
        if not args.prompts:
            panel.editor.set_prompt("")  # the file's own last turn is the one sent
    if args.images and len(args.prompts) <= 1:
        attach_now(panel, args.images)
    thread.refresh()


def attach_now(panel: RoutePanel, images: list[Image]) -> None:
    """The images on the user turn sent next: the prompt's, else the thread's last user turn."""
    thread = panel.conversation
    assert thread is not None
    if panel.editor.prompt.toPlainText().strip():
        thread.attachments = list(images)
        return
    from playground.protocol.conversation.model import Turn

    for i in range(len(thread.turns) - 1, -1, -1):
        if thread.turns[i].role == "user":
            turn = thread.turns[i]
            thread.turns[i] = Turn("user", turn.parts + tuple(images))
            return


async def converse(panel: RoutePanel, args: argparse.Namespace) -> None:
    """After the first run: answer its tool calls, then send each further ``--prompt``."""
    from playground.ui.conversation.auto_reply import auto_answer

    thread = panel.conversation
    if thread is None:
        return
    prompts = list(args.prompts[1:])
    while True:
        status = await panel.session.wait()
        if status not in ("complete", "incomplete"):
            return
        # The calls answered with their canned results (the thread may have sent them already).
        if auto_answer(thread) or panel.session.is_running:
            continue
        calls = thread.conversation().open_calls
        if calls or not prompts:
            return
        panel.editor.set_prompt(prompts.pop(0))
        if not prompts and args.images:
            attach_now(panel, args.images)
        panel.send()
        if panel.session.state is None or not panel.session.is_running:
            return
