"""What a multi-turn request says, read the same way on every route: the user turns' texts, the
images on the last user turn, and the tool results that answer the last calls. The simulated
model uses it to show that the earlier turns arrived: a follow-up names the previous user
turn's subject, an image is described from its bytes, each tool result is used in the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.sim.image_info import from_base64, from_data_url, image_info
from playground.sim.plan import dicts, text_of


@dataclass(slots=True)
class Dialogue:
    prompts: list[str] = field(default_factory=list)  # user turns with text, oldest first
    images: list[tuple[bytes | None, str | None]] = field(default_factory=list)  # (bytes, url)
    results: list[tuple[str, str]] = field(default_factory=list)  # (tool name, content)

    @property
    def after(self) -> str | None:
        """The tool results as one text (None when the last turn is no tool result)."""
        if not self.results:
            return None
        if len(self.results) == 1:
            return self.results[0][1]
        return "; ".join(f"{name or 'a tool'}: {content}" for name, content in self.results)

    def lead(self) -> str:
        """The answer's first sentences: the earlier subject, then what the images are."""
        out = []
        if len(self.prompts) >= 2:
            out.append(f'Following up on "{subject(self.prompts[-2])}".')
        seen = [image_info(data) for data, _ in self.images if data is not None]
        described = [info.describe() for info in seen if info is not None]
        if described:
            out.append(f"I see {' and '.join(described)}.")
        for _, url in self.images:
            if url is not None:
                out.append(f"I was given a link to an image ({url[:80]}) I cannot open from here.")
        return " ".join(out) + "\n\n" if out else ""


def subject(prompt: str) -> str:
    """A user turn's subject as the follow-up names it: its first eight words."""
    words = prompt.strip().rstrip("?.!").split()
    return " ".join(words[:8]) + ("…" if len(words) > 8 else "")


def _names(calls: list[tuple[str, str]], results: list[tuple[str, str]]) -> list[tuple[str, str]]:
    names = dict(calls)
    return [(names.get(call_id, ""), content) for call_id, content in results]


def _chat(body: dict[str, Any], d: Dialogue) -> None:
    messages = dicts(body.get("messages"))
    for msg in messages:
        if msg.get("role") == "user" and text_of(msg.get("content")):
            d.prompts.append(text_of(msg.get("content")))
    users = [m for m in messages if m.get("role") == "user"]
    for part in dicts(users[-1].get("content")) if users else []:
        if part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else None
            if isinstance(url, str):
                d.images.append((from_data_url(url), None if url.startswith("data:") else url))
    results: list[tuple[str, str]] = []
    for msg in reversed(messages):
        if msg.get("role") != "tool":
            break
        results.insert(0, (str(msg.get("tool_call_id") or ""), text_of(msg.get("content"))))
    calls = [
        (str(c.get("id")), str((c.get("function") or {}).get("name") or ""))
        for m in messages
        for c in dicts(m.get("tool_calls"))
        if isinstance(c.get("function") or {}, dict)
    ]
    d.results = _names(calls, results)


def _responses(body: dict[str, Any], d: Dialogue) -> None:
    raw = body.get("input")
    items = dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": str(raw or "")}]
    users = [i for i in items if i.get("role") == "user"]
    d.prompts = [text_of(i.get("content")) for i in users if text_of(i.get("content"))]
    for part in dicts(users[-1].get("content")) if users else []:
        url = part.get("image_url")
        if part.get("type") == "input_image" and isinstance(url, str):
            d.images.append((from_data_url(url), None if url.startswith("data:") else url))
    results: list[tuple[str, str]] = []
    for item in reversed(items):
        if item.get("type") != "function_call_output":
            break
        output = item.get("output")
        text = output if isinstance(output, str) else text_of(output)
        results.insert(0, (str(item.get("call_id") or ""), text))
    calls = [
        (str(i.get("call_id")), str(i.get("name") or ""))
        for i in items
        if i.get("type") == "function_call"
    ]
    d.results = _names(calls, results)


def _messages(body: dict[str, Any], d: Dialogue) -> None:
    messages = dicts(body.get("messages"))
    users = []
    for msg in messages:
        blocks = dicts(msg.get("content"))
        if msg.get("role") != "user" or (blocks and blocks[0].get("type") == "tool_result"):
            if msg.get("role") == "user" and any(b.get("type") != "tool_result" for b in blocks):
                users.append(msg)  # results with text after them: a user turn too
            continue
        users.append(msg)
    d.prompts = [t for m in users if (t := _user_text(m.get("content")))]
    for block in dicts(users[-1].get("content")) if users else []:
        source = block.get("source")
        if block.get("type") == "image" and isinstance(source, dict):
            if source.get("type") == "base64":
                d.images.append((from_base64(str(source.get("data") or "")), None))
            elif isinstance(source.get("url"), str):
                d.images.append((None, source["url"]))
    last = messages[-1] if messages else {}
    results = [
        (str(b.get("tool_use_id") or ""), text_of(b.get("content")))
        for b in dicts(last.get("content"))
        if last.get("role") == "user" and b.get("type") == "tool_result"
    ]
    calls = [
        (str(b.get("id")), str(b.get("name") or ""))
        for m in messages
        for b in dicts(m.get("content"))
        if b.get("type") == "tool_use"
    ]
    d.results = _names(calls, results)


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(
        str(b.get("text")) for b in dicts(content) if b.get("type") == "text" and b.get("text")
    )


def read(route: str, body: dict[str, Any]) -> Dialogue:
    """The dialogue of a chat, responses or messages request body."""
    d = Dialogue()
    {"chat": _chat, "responses": _responses, "messages": _messages}[route](body, d)
    return d
