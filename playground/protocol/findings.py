"""Findings: departures from the documented grammar, with stable codes, tied to timeline items."""

from __future__ import annotations

from typing import Final

from playground.protocol.state import Finding, Severity

__all__ = ["CODES", "FindingSink", "severity_of"]

# Stable codes (the inspector, the CLI and tests match on them), each with its one severity: the
# inspector's colour, the status line's count and `inspect` all read it from here. PROTOCOL.md
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
}


def severity_of(code: str) -> Severity:
    """The severity ``code`` is declared with (``warning`` for a code not declared yet)."""
    declared = CODES.get(code)
    return declared[0] if declared is not None else "warning"


class FindingSink:
    """Collects findings in arrival order and indexes them by timeline item."""

    __slots__ = ("_by_item", "_once", "findings")

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self._by_item: dict[int, list[Finding]] = {}
        self._once: set[str] = set()

    def report(self, code: str, message: str, item: int | None) -> Finding:
        """Record a finding of ``code``, at the severity ``CODES`` declares for it."""
        finding = Finding(severity_of(code), code, message, item)
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
