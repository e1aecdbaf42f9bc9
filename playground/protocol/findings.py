"""Findings: departures from the documented grammar, with stable codes, tied to timeline items."""

from __future__ import annotations

from typing import Final

from playground.protocol.state import Finding, Severity

__all__ = ["CODES", "FindingSink"]

# Stable codes (the inspector, the CLI and tests match on them). docs/protocol.md §0: every
# departure from the documented shape becomes a finding, never an exception.
CODES: Final[dict[str, str]] = {
    "invalid_json": "data is not valid JSON",
    "unknown_event": "an event type this route does not document (relayed, ignored)",
    "sequence_gap": "sequence_number skipped values",
    "sequence_step_back": "sequence_number did not increase",
    "no_sequence_number": "events carry no sequence_number",
    "delta_before_start": "a delta for an item or block that never started",
    "block_not_stopped": "a block or item was started but never stopped",
    "no_terminator": "the bytes ended before the route's terminator",
    "usage_not_last": "a chunk came after the usage chunk",
    "null_in_delta": "a delta field set to null",
    "event_after_terminator": "an event after the route's terminator",
    "error_mid_stream": "an error arrived after the stream started",
    "done_mismatch": "a .done event restates the whole value differently from the deltas",
    "unterminated_event": "bytes at end of stream without the blank line that dispatches them",
    "json_body": "a JSON body where a stream was asked for",
    "audio_body": "one audio body where a stream of events was asked for",
    "error_body": "the body is an error envelope, not a stream (no HTTP error status said so)",
    "http_error": "the request failed before the stream started",
    "unexpected_shape": "a field has a type the grammar does not allow",
    "bad_base64": "base64 payload does not decode",
    "decoder_error": "the decoder could not read this event (a bug: reported, not raised)",
    "empty_stream": "no bytes at all",
    "invalid_utf8": "bytes that are not UTF-8 (binary junk) in the stream",
    "out_of_order": "an event or field out of its documented order (role after content, ...)",
    "unexpected_done": "data: [DONE] on a route whose grammar has none (responses, messages)",
    "no_event_line": "an event without the `event:` line its route's grammar gives every event",
    "no_finish_reason": "chat reached data: [DONE] but no choice got a finish_reason",
    "no_usage": "stream_options.include_usage was asked for but no chunk carried usage",
    "usage_shape": "the usage chunk's choices differ from the shape the request asked for",
    "fewer_partials": "fewer partial images came than partial_images asked for",
    "schema_invalid": "the final answer does not validate against the requested JSON Schema",
}


class FindingSink:
    """Collects findings in arrival order and indexes them by timeline item."""

    __slots__ = ("_by_item", "_once", "findings")

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self._by_item: dict[int, list[Finding]] = {}
        self._once: set[str] = set()

    def report(self, severity: Severity, code: str, message: str, item: int | None) -> Finding:
        finding = Finding(severity, code, message, item)
        self.findings.append(finding)
        if item is not None:
            self._by_item.setdefault(item, []).append(finding)
        return finding

    def once(
        self, key: str, severity: Severity, code: str, message: str, item: int | None
    ) -> Finding | None:
        """Report only the first occurrence of ``key`` (keeps a noisy provider from flooding)."""
        if key in self._once:
            return None
        self._once.add(key)
        return self.report(severity, code, message, item)

    def for_item(self, item: int) -> list[Finding]:
        return list(self._by_item.get(item, ()))
