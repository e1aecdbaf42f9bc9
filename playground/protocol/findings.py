"""Findings: departures from the documented grammar, with stable codes, tied to timeline items."""

from __future__ import annotations

from typing import Final

from playground.protocol.state import Finding, Severity

__all__ = ["CODES", "RANK", "STORED_PER_CODE", "FindingSink", "severity_of"]

# A run keeps the first findings of each code; after that they are counted, not stored: a
# hostile stream of millions of unreadable events made a finding each (0.75-1 KB apiece, 3 GB
# for 24 MB of `data:x`), when the first few say all there is to say.
STORED_PER_CODE: Final = 50
RANK: Final = {"info": 1, "warning": 2, "error": 3}

# Stable codes (the inspector, the CLI and tests match on them), each with its one severity: the
# inspector's colour, the status line's count and `inspect` all read it from here. docs/protocol.md
# §0: every departure from the documented shape becomes a finding, never an exception.
#   error    the run failed or content was lost (an event that could not be read)
#   warning  a departure a client may trip on; the content is still all there
#   info     a harmless difference worth knowing (a client reads it all the same)
CODES: Final[dict[str, tuple[Severity, str]]] = {
    "invalid_json": ("error", "data is not valid JSON"),
    "unknown_event": ("info", "an event type this route does not document (relayed, ignored)"),
    "sequence_gap": ("warning", "sequence_number skipped values"),
    "sequence_step_back": ("warning", "sequence_number did not increase"),
    "no_sequence_number": ("info", "events carry no sequence_number"),
    "delta_before_start": ("warning", "a delta for an item or block that never started"),
    "block_not_stopped": ("warning", "a block or item was started but never stopped"),
    "no_terminator": ("warning", "the bytes ended before the route's terminator"),
    "usage_not_last": ("warning", "a chunk came after the usage chunk"),
    "null_in_delta": ("info", "a delta field set to null"),
    "event_after_terminator": ("warning", "an event after the route's terminator"),
    "error_mid_stream": ("error", "an error arrived after the stream started"),
    "done_mismatch": (
        "warning",
        "a .done event restates the whole value differently from the deltas",
    ),
    "unterminated_event": (
        "warning",
        "bytes at end of stream without the blank line that dispatches them",
    ),
    "json_body": ("warning", "a JSON body where a stream was asked for"),
    "audio_body": ("warning", "one audio body where a stream of events was asked for"),
    "error_body": (
        "error",
        "the body is an error envelope, not a stream (no HTTP error status said so)",
    ),
    "http_error": ("error", "the request failed before the stream started"),
    "unexpected_shape": ("warning", "a field has a type the grammar does not allow"),
    "unknown_body": ("info", "a whole JSON body of a shape no route documents"),
    "bad_base64": ("warning", "base64 payload does not decode"),
    "not_an_image": (
        "warning",
        "an image's base64 decodes to bytes that are no PNG, JPEG, WebP or GIF",
    ),
    "decoder_error": (
        "error",
        "the decoder could not read this event (a bug: reported, not raised)",
    ),
    "empty_stream": ("warning", "no bytes at all"),
    "invalid_utf8": ("warning", "bytes that are not UTF-8 (binary junk) in the stream"),
    "out_of_order": (
        "warning",
        "an event or field out of its documented order (role after content, ...)",
    ),
    "unexpected_done": (
        "info",
        "data: [DONE] on a route whose grammar has none (responses, messages)",
    ),
    "no_event_line": (
        "info",
        "an event without the `event:` line its route's grammar gives every event",
    ),
    "event_line_required": (
        "warning",
        "an event without the `event:` line its SDK routes on (the Anthropic SDK drops it)",
    ),
    "no_finish_reason": ("warning", "chat reached data: [DONE] but no choice got a finish_reason"),
    "no_usage": (
        "warning",
        "stream_options.include_usage was asked for but no chunk carried usage",
    ),
    "usage_shape": (
        "warning",
        "the usage chunk's choices differ from the shape the request asked for",
    ),
    "fewer_partials": ("info", "fewer partial images came than partial_images asked for"),
    "schema_invalid": (
        "warning",
        "the final answer does not validate against the requested JSON Schema",
    ),
    "json_too_deep": (
        "error",
        "JSON nested deeper than the reader's limit: kept as text, not read",
    ),
}


def severity_of(code: str) -> Severity:
    """The severity ``code`` is declared with (``warning`` for a code not declared yet)."""
    declared = CODES.get(code)
    return declared[0] if declared is not None else "warning"


class FindingSink:
    """Collects findings in arrival order and indexes them by timeline item; past
    ``STORED_PER_CODE`` of one code, counts them (``omitted``) and marks their items' worst
    severity (``rank_of``: a byte an item), so every affected row still shows its badge."""

    __slots__ = ("_by_item", "_marks", "_once", "_stored", "findings", "omitted")

    def __init__(self, findings: list[Finding], omitted: dict[str, int] | None = None) -> None:
        self.findings = findings
        self.omitted = omitted if omitted is not None else {}
        self._stored: dict[str, int] = {}
        self._marks = bytearray()
        self._by_item: dict[int, list[Finding]] = {}
        self._once: set[str] = set()

    def report(self, code: str, message: str, item: int | None) -> Finding:
        """Record a finding of ``code``, at the severity ``CODES`` declares for it."""
        severity = severity_of(code)
        finding = Finding(severity, code, message, item)
        stored = self._stored.get(code, 0)
        if stored >= STORED_PER_CODE:
            self.omitted[code] = self.omitted.get(code, 0) + 1
            if item is not None and item >= 0:
                self._mark(item, RANK.get(severity, 1))
            return finding
        self._stored[code] = stored + 1
        self.findings.append(finding)
        if item is not None:
            self._by_item.setdefault(item, []).append(finding)
        return finding

    def once(self, key: str, code: str, message: str, item: int | None) -> Finding | None:
        """Report only the first occurrence of ``key`` (keeps a noisy provider from flooding)."""
        if key in self._once:
            return None
        self._once.add(key)
        return self.report(code, message, item)

    def for_item(self, item: int) -> list[Finding]:
        return list(self._by_item.get(item, ()))

    def rank_of(self, item: int) -> int:
        """The worst severity rank (``RANK``) of the item's counted-only findings; 0: none."""
        marks = self._marks
        return marks[item] if 0 <= item < len(marks) else 0

    def _mark(self, item: int, rank: int) -> None:
        marks = self._marks
        if item >= len(marks):
            marks.extend(bytes(item + 1 - len(marks)))
        if rank > marks[item]:
            marks[item] = rank
