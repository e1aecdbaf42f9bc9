"""Named presets: a conversational panel's whole workspace as a JSON file in the data folder.

A preset file (``<data dir>/presets/<name>.json``, written atomically) holds::

    {"format": "playground-preset/1", "name": str, "route": "chat" | "responses" | "messages",
     "saved_at": ISO-8601, "model": str, "system": str | null,
     "body": {...},                        # the body the panel would send: thread, prompt,
                                           # tools and parameters, in the route's own shape
     "thread": {...} | null,               # the thread's turns alone, in the route's shape
                                           # with what a body leaves out (chat's reasoning)
     "tools": {"canned": {name: result},   # canned results (never sent)
               "auto_reply": bool | null},
     "variables": {name: value}}           # the {{name}} values typed (optional); the body
                                           # keeps its variables as written

The body is the truth (it is what the JSON body view shows); ``model`` and ``system`` repeat
what it holds so a listing needs no parse. A file that is not a preset is reported in one
sentence (``PresetError``), never raised as anything else, and set aside as ``<file>.corrupt``
(a preset folder with a broken file in it keeps working, and the name is free again).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playground.protocol import safe_json
from playground.protocol.conversation.bodies import (
    CONVERSATION_ROUTES,
    conversation_keys,
    parse_body,
)
from playground.protocol.conversation.model import Conversation
from playground.runs.atomic import write_json_atomically
from playground.runs.paths import data_dir
from playground.runs.set_aside import set_aside

__all__ = [
    "PRESET_FORMAT",
    "Preset",
    "PresetError",
    "PresetInfo",
    "delete_preset",
    "file_name",
    "find_preset",
    "headless_route",
    "list_presets",
    "load_preset",
    "new_conversation_body",
    "parse_preset",
    "preset_dir",
    "preset_path",
    "save_preset",
    "thread_keys",
    "thread_of",
]

PRESET_FORMAT = "playground-preset/1"
MAX_NAME = 80
SUFFIX = ".json"


class PresetError(ValueError):
    """A preset that cannot be saved or read; the message says which and why, in one sentence."""


@dataclass(frozen=True)
class Preset:
    """A conversational panel's workspace."""

    name: str
    route: str
    body: dict[str, Any]
    model: str = ""
    system: str | None = None
    canned: dict[str, str] = field(default_factory=dict)
    auto_reply: bool | None = None
    saved_at: str = ""
    thread: dict[str, Any] | None = None
    variables: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PRESET_FORMAT,
            "name": self.name,
            "route": self.route,
            "saved_at": self.saved_at,
            "model": self.model,
            "system": self.system,
            "body": self.body,
            "thread": self.thread,
            "tools": {"canned": dict(self.canned), "auto_reply": self.auto_reply},
            "variables": dict(self.variables),
        }


@dataclass(frozen=True)
class PresetInfo:
    """One preset file as a list shows it; ``error`` says why a file cannot be opened."""

    name: str
    path: Path
    route: str = ""
    model: str = ""
    error: str = ""


def preset_dir(root: Path | None = None) -> Path:
    """The presets folder (not created here): ``root``, else ``<data dir>/presets``."""
    return Path(root) if root is not None else data_dir() / "presets"


def check_name(name: str) -> str:
    """``name`` stripped; PresetError when it cannot name a preset."""
    clean = " ".join(str(name).split())
    if not clean:
        raise PresetError("A preset needs a name.")
    if len(clean) > MAX_NAME:
        raise PresetError(f"A preset name is at most {MAX_NAME} characters.")
    return clean


def file_name(name: str) -> str:
    """The file a preset named ``name`` is kept in: letters, digits, ``-``, ``_``, ``.`` and
    spaces stay; anything else (``/``, ``:``, ...) becomes ``_`` so no name leaves the folder."""
    stem = re.sub(r"[^\w\-. ]", "_", check_name(name)).strip(" .") or "_"
    return stem + SUFFIX


def preset_path(name: str, root: Path | None = None) -> Path:
    return preset_dir(root) / file_name(name)


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PresetError(f"{where}: its {key!r} is not a string.")
    return value


def parse_preset(data: Any, where: str = "The preset") -> Preset:
    """The Preset ``data`` (a file's JSON) holds; PresetError (one sentence) when it is none."""
    if not isinstance(data, dict) or data.get("format") != PRESET_FORMAT:
        raise PresetError(f"{where} is not a playground preset ({PRESET_FORMAT}).")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PresetError(f"{where} has no name.")
    route = data.get("route")
    if route not in CONVERSATION_ROUTES:
        raise PresetError(
            f"{where} is for the route {route!r}; presets are for {', '.join(CONVERSATION_ROUTES)}."
        )
    body = data.get("body")
    if not isinstance(body, dict):
        raise PresetError(f"{where} has no request body (a JSON object).")
    try:
        parse_body(body, route)
    except Exception as exc:  # whatever the body holds, one sentence
        raise PresetError(f"{where}: its body is no {route} request ({exc}).") from None
    thread = data.get("thread")
    if thread is not None:
        if not isinstance(thread, dict):
            raise PresetError(f"{where}: its 'thread' is not an object.")
        try:
            parse_body(thread, route)
        except Exception as exc:
            raise PresetError(f"{where}: its thread is no {route} conversation ({exc}).") from None
    tools = data.get("tools") or {}
    if not isinstance(tools, dict):
        raise PresetError(f"{where}: its 'tools' is not an object.")
    canned = tools.get("canned") or {}
    if not isinstance(canned, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in canned.items()
    ):
        raise PresetError(f"{where}: its canned results are not tool names and strings.")
    auto_reply = tools.get("auto_reply")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise PresetError(f"{where}: its 'variables' are not names and strings.")
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise PresetError(f"{where}: its 'system' is not a string.")
    return Preset(
        name=name,
        route=str(route),
        body=body,
        model=_text(data, "model", where) or str(body.get("model") or ""),
        system=system,
        canned=dict(canned),
        auto_reply=auto_reply if isinstance(auto_reply, bool) else None,
        saved_at=_text(data, "saved_at", where),
        thread=thread,
        variables=dict(variables),
    )


def load_preset(path: Path) -> Preset:
    """Read a preset file; PresetError (naming the file, never quoting it) for anything wrong,
    the file then set aside as ``<name>.corrupt`` (it is no preset, whatever it holds)."""
    path = Path(path)
    try:
        return _read_preset(path)
    except PresetError as exc:
        if not (path.exists() or path.is_symlink()):
            raise
        try:
            aside = set_aside(path)
        except OSError:
            raise exc from None  # left where it is: still listed with its reason
        raise PresetError(f"{str(exc).rstrip('.')}; it was set aside as {aside.name}.") from None


def _read_preset(path: Path) -> Preset:
    where = f"The file {path.name}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PresetError(f"There is no preset file {path.name}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise PresetError(f"{where} cannot be read ({reason}).") from None
    try:
        data = safe_json.loads(text)
    except safe_json.JsonTooDeep as exc:
        raise PresetError(f"{where} is nested deeper than {exc.limit} levels.") from None
    except ValueError as exc:
        line = re.search(r"\bline (\d+)", str(exc))
        at = f" (line {line.group(1)})" if line is not None else ""
        raise PresetError(f"{where} is not valid JSON{at}.") from None
    return parse_preset(data, where)


def save_preset(preset: Preset, root: Path | None = None) -> Path:
    """Write ``preset`` (named, checked, stamped now) atomically; returns its path."""
    name = check_name(preset.name)
    stamped = Preset(
        name=name,
        route=preset.route,
        body=preset.body,
        model=preset.model,
        system=preset.system,
        canned=preset.canned,
        auto_reply=preset.auto_reply,
        saved_at=datetime.now(UTC).isoformat(timespec="seconds"),
        thread=preset.thread,
        variables=preset.variables,
    )
    parse_preset(stamped.to_json(), f"The preset {name!r}")  # never write what cannot be read
    folder = preset_dir(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / file_name(name)
        if target.is_dir():  # a folder in the file's place: out of the way, the preset is saved
            set_aside(target)
        write_json_atomically(target, stamped.to_json(), prefix=".preset-")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PresetError(f"The preset {name!r} was not saved ({reason}).") from None
    return target


def list_presets(root: Path | None = None) -> list[PresetInfo]:
    """Every preset file in the folder, by name; a file that cannot be read is listed with its
    ``error`` (so a menu can say so) rather than left out silently."""
    folder = preset_dir(root)
    try:
        # Folders named like a preset too: reading one sets it aside, with its reason listed.
        paths = sorted(p for p in folder.iterdir() if p.suffix == SUFFIX)
    except OSError:
        return []
    found: list[PresetInfo] = []
    for path in paths:
        if path.name.startswith("."):
            continue
        try:
            preset = load_preset(path)
        except PresetError as exc:
            found.append(PresetInfo(path.stem, path, error=str(exc)))
            continue
        found.append(PresetInfo(preset.name, path, preset.route, preset.model))
    return sorted(found, key=lambda p: (p.name.casefold(), p.name))


def find_preset(name: str, root: Path | None = None) -> Preset:
    """The preset named ``name`` (its file, else a file that says it has that name)."""
    path = preset_path(name, root)
    if path.exists():
        return load_preset(path)
    for info in list_presets(root):
        if info.name == name and not info.error:
            return load_preset(info.path)
    raise PresetError(f"There is no preset named {name!r}.")


def headless_route(name: str, route: str | None = None) -> str:
    """The route ``--preset NAME`` runs on (its preset's); PresetError when there is no such
    preset, or ``--route`` names another."""
    preset = find_preset(name)
    if route is not None and route != preset.route:
        raise PresetError(f"--preset {name!r} is for {preset.route}, not --route {route}.")
    return preset.route


def delete_preset(name: str, root: Path | None = None) -> bool:
    """Remove the preset named ``name``; False when there was none."""
    for info in list_presets(root):
        if info.name == name:
            with contextlib.suppress(FileNotFoundError):
                info.path.unlink()
            return True
    return False


def thread_keys(route: str, conversation: Conversation) -> dict[str, Any]:
    """A thread as a preset keeps it: the route's conversation keys, chat's reasoning too (a
    chat body sends none, but the thread shows it), the system left to the body."""
    return conversation_keys(route, Conversation(conversation.turns), reasoning=True)


def thread_of(preset: Preset) -> Conversation | None:
    """The thread a preset keeps (None for a preset saved without one: its body has it)."""
    if preset.thread is None:
        return None
    return parse_body(preset.thread, preset.route).conversation


def new_conversation_body(preset: Preset) -> dict[str, Any]:
    """The preset's body with no thread: its system, tools and parameters, and an empty turn."""
    pasted = parse_body(preset.body, preset.route)
    system = pasted.conversation.system
    return pasted.params | conversation_keys(preset.route, Conversation((), system))
