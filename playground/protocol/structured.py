"""Structured output: the JSON Schema a request asks the answer to follow, and the answer checked
against it (``jsonschema``) as soon as its text parses and again at the end; pure.

Each route names the schema in its own shape (the routes' ``build`` writes them, the simulator's
``sim/structured.py`` reads the same three): chat ``response_format.json_schema.schema``,
responses ``text.format.schema``, messages ``output_config.format.schema`` (Anthropic's
structured outputs; the older ``output_format`` too).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from playground.protocol import safe_json

if TYPE_CHECKING:
    from playground.protocol.findings import FindingSink
    from playground.protocol.state import StreamState

__all__ = [
    "JsonWatch",
    "StructuredCheck",
    "Verdict",
    "answered",
    "check",
    "check_answer",
    "report_schema",
    "requested_schema",
]

_SPACE: Final = frozenset(" \t\r\n")
_MESSAGE_MAX: Final = 200  # a message quoting a whole instance is cut: it is shown on one line


def _schema_in(fmt: Any, nested: bool) -> dict[str, Any] | None:
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return None
    holder = fmt.get("json_schema") if nested else fmt
    schema = holder.get("schema") if isinstance(holder, Mapping) else None
    return dict(schema) if isinstance(schema, Mapping) else None


def requested_schema(route: str, body: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The JSON Schema ``body`` asks the answer to follow on ``route``; None when it asks none
    (plain text, a JSON object without a schema, or a route without structured output)."""
    if not isinstance(body, Mapping):
        return None
    if route == "chat":
        return _schema_in(body.get("response_format"), nested=True)
    if route == "responses":
        text = body.get("text")
        return _schema_in(text.get("format"), nested=False) if isinstance(text, Mapping) else None
    if route == "messages":
        config = body.get("output_config")
        fmt = config.get("format") if isinstance(config, Mapping) else body.get("output_format")
        return _schema_in(fmt, nested=False)
    return None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer against its schema: ``errors`` are ``"<JSON path>: <message>"`` lines."""

    valid: bool
    errors: tuple[str, ...] = ()
    parsed: bool = True  # the text was JSON (a parse error is the one error otherwise)

    def as_json(self) -> dict[str, Any]:
        """The headless dump's ``structured``: ``{"valid": bool, "errors": [str]}``."""
        return {"valid": self.valid, "errors": list(self.errors)}

    @property
    def line(self) -> str:
        """One line for the window: ``valid``, or the first error and how many there are."""
        if self.valid:
            return "valid"
        more = f" (+{len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
        return f"{self.errors[0]}{more}" if self.errors else "not valid"


def _short(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= _MESSAGE_MAX else message[: _MESSAGE_MAX - 1] + "…"


def check(schema: Mapping[str, Any], text: str) -> Verdict:
    """``text`` parsed as JSON and validated against ``schema``; every error with its JSON path
    (``$.items[0].name``), in document order. Never raises: a schema that is itself invalid is
    said as an error too."""
    if safe_json.exceeds_depth(text):
        too_deep = f"$: nested deeper than {safe_json.MAX_DEPTH} levels, not read"
        return Verdict(False, (too_deep,), parsed=False)
    try:
        # Python's reader, past the depth check, for its messages ("Unterminated string").
        value = json.loads(text)
    except ValueError as exc:
        return Verdict(False, (f"$: not valid JSON ({exc})",), parsed=False)
    return validate(schema, value)


def validate(schema: Mapping[str, Any], value: Any) -> Verdict:
    """``value`` (parsed JSON) against ``schema`` (the draft its ``$schema`` names, else the
    newest ``jsonschema`` knows)."""
    # Loaded here, not at import: a run without a schema never needs it (startup time).
    import jsonschema
    from jsonschema.exceptions import SchemaError

    document = dict(schema)  # jsonschema's validators are typed for a dict
    try:
        cls = jsonschema.validators.validator_for(document)
        cls.check_schema(document)
        found = list(cls(document).iter_errors(value))
    except SchemaError as exc:
        return Verdict(False, (f"schema: {_short(str(exc.message))}",))
    except Exception as exc:  # a $ref to a remote document and the like: said, not raised
        return Verdict(False, (f"schema: {type(exc).__name__}: {_short(str(exc))}",))
    found.sort(key=lambda e: [str(p) for p in e.absolute_path])
    errors = tuple(f"{e.json_path}: {_short(str(e.message))}" for e in found)
    return Verdict(not errors, errors)


class JsonWatch:
    """Follows a growing text and says when it may hold one whole JSON value, so the text is
    parsed when a top-level value closes, not per token: it scans each new character once."""

    __slots__ = ("_depth", "_escape", "_in_string", "_started", "closes")

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._started = False
        self.closes = 0  # how many times a top-level object, array or string closed

    def feed(self, text: str) -> bool:
        """Take the text added since the last call; True if a top-level value closed in it."""
        closed = False
        for ch in text:
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
                    if self._depth == 0:
                        closed = True
                continue
            if ch in _SPACE:
                continue
            self._started = True
            if ch == '"':
                self._in_string = True
            elif ch in "{[":
                self._depth += 1
            elif ch in "}]":
                self._depth = max(0, self._depth - 1)
                if self._depth == 0:
                    closed = True
        if closed:
            self.closes += 1
        return closed

    @property
    def whole(self) -> bool:
        """Nothing is open (no string, object or array) and something came: the text may parse
        (a bare number or literal is only known whole at the end)."""
        return self._started and not self._in_string and self._depth == 0


class StructuredCheck:
    """One run's answer against its schema: ``update`` while it streams (a parse attempt only when
    a top-level value has closed), ``final`` at the end."""

    __slots__ = ("_seen", "_watch", "schema", "verdict")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self._watch = JsonWatch()
        self._seen = 0
        self.verdict: Verdict | None = None  # the latest check; None until the text first parses

    def update(self, text: str) -> Verdict | None:
        """``text`` is the whole answer so far (it only grows); the verdict when it changed."""
        if len(text) < self._seen:  # a new answer: start over
            self._watch, self._seen, self.verdict = JsonWatch(), 0, None
        new = text[self._seen :]
        self._seen = len(text)
        if not new or not self._watch.feed(new) or not self._watch.whole:
            return None
        verdict = check(self.schema, text)
        if not verdict.parsed:
            return None  # not JSON yet (text after the value, say): the end decides
        self.verdict = verdict
        return verdict

    def final(self, text: str) -> Verdict:
        """The answer as it ended, checked once more (parse errors count now)."""
        self.update(text)
        verdict = check(self.schema, text)
        self.verdict = verdict
        return verdict


def report_schema(sink: FindingSink, verdict: Verdict) -> None:
    """The ``schema_invalid`` finding for a final answer that does not validate."""
    if verdict.valid:
        return
    more = f" ({len(verdict.errors)} errors)" if len(verdict.errors) > 1 else ""
    sink.report(
        "schema_invalid",
        f"the answer does not validate against the requested JSON Schema: "
        f"{verdict.errors[0] if verdict.errors else 'not valid'}{more}",
        None,
    )


def answered(state: StreamState) -> bool:
    """Whether the run ended with an answer to check: it reached its terminator with no error,
    and it is not only tool calls (a tool-using turn has no answer text yet)."""
    return state.terminated and state.error is None and not (state.tool_calls and not state.text)


def check_answer(schema: Mapping[str, Any], state: StreamState, sink: FindingSink) -> None:
    """The final answer against ``schema``; ``schema_invalid`` when it does not validate, and
    ``json_too_deep`` (not validated: the text is kept as it is) when it nests too deep."""
    if not answered(state):
        return
    if safe_json.exceeds_depth(state.text):
        sink.report(
            "json_too_deep",
            f"the answer nests deeper than {safe_json.MAX_DEPTH} levels: kept as text, "
            "not checked against the requested JSON Schema",
            None,
        )
        return
    report_schema(sink, check(schema, state.text))
