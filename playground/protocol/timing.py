"""Where the time went: milestones, per-channel rates, gaps and dead air of a decoded run.

Pure and synchronous (no Qt, no httpx). Every figure is in seconds since the request was sent,
the clock the transport and captures use for chunk arrival times (``SSEItem.t_first/t_last``).

Decisions ("Where the time went"):
- An item *arrives* when its last byte arrived (``t_last``): that is when the SSE parser could
  dispatch it and the widgets could show it (WHATWG: dispatch on the blank line;
  docs/protocol.md §1).
- Which item carried what comes from the state's own provenance (``TextBuffer.origins``,
  ``ImageState.item``, ``AudioState.origins``), so timing never re-decodes a route.
- Tokens are estimated as one per delta (gateways stream one token per delta as a rule); when the
  server reported usage, the reported count wins and ``tokens_source`` says so.
- Rates are tokens over the span from the channel's first delta to its last (the usual
  "output tokens per second after the first token" figure); ``None`` when that span is zero.
- Dead air is an inter-event gap longer than ``max(250 ms, 5 x median gap)``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Protocol

from playground.protocol import safe_json
from playground.protocol.figures import first_token, output_tokens_per_second
from playground.protocol.sse import SSEComment, SSEEvent, SSEItem, SSEUnterminated
from playground.protocol.state import StreamState, TextBuffer
from playground.protocol.timing_types import (
    BINS_PER_DECADE,
    CHANNELS,
    DEAD_AIR_FACTOR,
    DEAD_AIR_FLOOR,
    ChannelStats,
    Gap,
    HistogramBin,
    Milestone,
    Timing,
)
from playground.protocol.usage import normalize_usage

__all__ = [
    "CHANNELS",
    "ChannelStats",
    "Gap",
    "HistogramBin",
    "Milestone",
    "Timing",
    "compute_timing",
    "gap_histogram",
    "normalize_usage",
]


class _Source(Protocol):
    """Anything with the decoder's ``items`` and ``state`` (a StreamDecoder, or a test double)."""

    @property
    def items(self) -> Sequence[SSEItem]: ...

    @property
    def state(self) -> StreamState: ...


def gap_histogram(gaps: Sequence[float], per_decade: int = BINS_PER_DECADE) -> list[HistogramBin]:
    """Log-spaced bins covering the gaps: edges at 10**(k/per_decade), plus a first bin for zeros.

    Events that share a network chunk arrive together (gap 0), so zero gets a bin of its own,
    ``[0, lowest edge)``; the other bins span the decades from the smallest positive gap to the
    largest, so a chart of 1 ms token gaps beside a 3 s stall stays readable.
    """
    if not gaps:
        return []
    positive = [g for g in gaps if g > 0]
    if not positive:
        return [HistogramBin(0.0, 0.0, len(gaps))]
    lo_k = math.floor(math.log10(min(positive)) * per_decade + 1e-9)
    hi_k = math.floor(math.log10(max(positive)) * per_decade + 1e-9) + 1
    edges = [10 ** (k / per_decade) for k in range(lo_k, hi_k + 1)]
    counts = [0] * (len(edges) - 1)
    zeros = 0
    for g in gaps:
        if g <= 0:
            zeros += 1
            continue
        k = math.floor(math.log10(g) * per_decade + 1e-9) - lo_k
        counts[min(max(k, 0), len(counts) - 1)] += 1
    bins = [HistogramBin(0.0, edges[0], zeros)] if zeros else []
    bins.extend(HistogramBin(edges[i], edges[i + 1], c) for i, c in enumerate(counts))
    return bins


def _is_error_item(item: SSEItem, payload: object | None) -> bool:
    """An error frame: ``event: error`` (Anthropic, Groq), ``type: error``/``response.failed``, or
    a top-level ``error`` object (the OpenAI SDK raises on those, docs/protocol.md §1)."""
    if not isinstance(item, SSEEvent):
        return False
    if item.event == "error":
        return True
    if payload is None and '"error"' not in item.data and "failed" not in item.data:
        return False
    if payload is None:
        try:
            payload = safe_json.loads(item.data)
        except ValueError:
            return False
    if not isinstance(payload, dict):
        return False
    kind = payload.get("type")
    if kind in ("error", "response.failed"):
        return True
    return payload.get("error") not in (None, {}, "")


class _Builder:
    """Walks the state's provenance once and fills a Timing."""

    def __init__(self, items: Sequence[SSEItem], state: StreamState) -> None:
        self.items = items
        self.state = state
        self.timing = Timing()
        self.kinds: list[str] = ["meta"] * len(items)

    def t_of(self, item: int) -> float | None:
        if 0 <= item < len(self.items):
            return self.items[item].t_last
        return None

    def channel(self, name: str) -> ChannelStats:
        found = self.timing.channels.get(name)
        if found is None:
            found = self.timing.channels[name] = ChannelStats(name)
        return found

    def add_buffer(self, name: str, buf: TextBuffer) -> None:
        """Count a TextBuffer's deltas into channel ``name`` and tag the items that carried them."""
        if not buf.origins:
            return
        stats = self.channel(name)
        stats.chars += len(buf)
        for _offset, item in buf.origins:
            t = self.t_of(item)
            stats.deltas += 1
            if 0 <= item < len(self.kinds):
                self.kinds[item] = name
            if t is None:
                continue
            if stats.t_first is None or t < stats.t_first:
                stats.t_first = t
            if stats.t_last is None or t > stats.t_last:
                stats.t_last = t

    def add_point(self, name: str, item: int, t: float | None, size: int) -> None:
        stats = self.channel(name)
        stats.deltas += 1
        stats.chars += size
        if 0 <= item < len(self.kinds):
            self.kinds[item] = name
        if t is not None:
            stats.t_first = t if stats.t_first is None else min(stats.t_first, t)
            stats.t_last = t if stats.t_last is None else max(stats.t_last, t)


def _first(stats: ChannelStats | None) -> float | None:
    return stats.t_first if stats is not None else None


def compute_timing(
    source: _Source | tuple[Sequence[SSEItem], StreamState],
    t_headers: float | None = None,
    t_first_byte: float | None = None,
    *,
    t_end: float | None = None,
) -> Timing:
    """Every "where the time went" figure for a run, from a decoder (or ``(items, state)``).

    ``t_headers`` and ``t_first_byte`` come from the transport or the capture (the decoder never
    sees headers); when ``t_first_byte`` is unknown the first item's first byte stands in for it.
    ``t_end`` is when the bytes ended (the capture's ``end``), if known.
    """
    if isinstance(source, tuple):
        items, state = source
        payload_of = None
    else:
        items, state = source.items, source.state
        payload_of = getattr(source, "payload", None)
    b = _Builder(items, state)
    timing = b.timing
    n = len(items)

    # Order matters: later passes win the item's colour, so an item that carried both a role
    # and text shows as text, and an error frame shows as an error whatever else it carried.
    for i, it in enumerate(items):
        if isinstance(it, SSEComment):
            b.kinds[i] = "comment"
    for choice in sorted(state.choices.values(), key=lambda c: c.index):
        b.add_buffer("refusal", choice.refusal)
    for choice in sorted(state.choices.values(), key=lambda c: c.index):
        b.add_buffer("reasoning", choice.reasoning)
    for choice in sorted(state.choices.values(), key=lambda c: c.index):
        b.add_buffer("text", choice.text)
    for call in state.tool_calls:
        b.add_buffer("tool_args", call.arguments)
    partial_first: float | None = None
    for image in state.images:
        t = image.t
        b.add_point("image", image.item, t, 1)
        if not image.final:
            partial_first = t if partial_first is None else min(partial_first, t)
    audio = state.audio
    if audio is not None and audio.origins:
        ends = [off for off, _ in audio.origins[1:]] + [len(audio.data)]
        for (off, item), end in zip(audio.origins, ends, strict=True):
            b.add_point("audio", item, b.t_of(item), max(end - off, 0))
    for i, it in enumerate(items):
        if isinstance(it, SSEUnterminated):
            b.kinds[i] = "error"
        elif isinstance(it, SSEEvent):
            payload = None
            if payload_of is not None and (it.event == "error" or '"error"' in it.data):
                try:
                    payload = payload_of(i)
                except Exception:  # a test double or a decoder mid-reset: judge from the text
                    payload = None
            if _is_error_item(it, payload):
                b.kinds[i] = "error"

    # Arrival times, gaps, dead air.
    times = [it.t_last for it in items]
    timing.times = times
    timing.kinds = b.kinds
    timing.sizes = [it.size for it in items]
    gaps = [times[i + 1] - times[i] for i in range(n - 1)]
    timing.gaps = gaps
    if gaps:
        timing.median_gap = statistics.median(gaps)
        timing.dead_air_threshold = max(DEAD_AIR_FLOOR, DEAD_AIR_FACTOR * timing.median_gap)
        timing.dead_air = [
            Gap(times[i], times[i + 1], i, i + 1)
            for i, g in enumerate(gaps)
            if g > timing.dead_air_threshold
        ]
    timing.histogram = gap_histogram(gaps)

    # Milestones.
    timing.t_headers = t_headers
    timing.t_first_byte = (
        t_first_byte if t_first_byte is not None else (items[0].t_first if items else None)
    )
    timing.t_first_event = times[0] if times else None
    timing.t_last_event = times[-1] if times else None
    timing.t_end = t_end
    ch = timing.channels
    timing.t_first_reasoning = _first(ch.get("reasoning"))
    timing.t_first_text = _first(ch.get("text"))
    timing.t_first_refusal = _first(ch.get("refusal"))
    timing.t_first_tool_args = _first(ch.get("tool_args"))
    timing.t_first_image = _first(ch.get("image"))
    timing.t_first_partial_image = partial_first
    timing.t_first_audio = _first(ch.get("audio"))
    timing.milestones = _milestones(timing, b)
    timing.output_tokens_per_second = output_tokens_per_second(
        state, first_token(timing), timing.t_last_event
    )

    # Usage as reported beside what was counted.
    timing.usage_raw = state.usage
    reported = normalize_usage(state.usage)
    # While the run streams, rates are of what has streamed: an early usage (Messages'
    # message_start, output_tokens 1) is not the final count, so it gives no channel its tokens.
    _attribute_usage(timing, reported if state.status != "streaming" else {})
    timing.usage_reported = reported
    timing.counted = {
        "events": sum(1 for it in items if isinstance(it, SSEEvent)),
        "comments": sum(1 for it in items if isinstance(it, SSEComment)),
    }
    for name in ("text", "reasoning", "refusal", "tool_args"):
        stats = ch.get(name)
        timing.counted[f"{name}_deltas"] = stats.deltas if stats else 0
        timing.counted[f"{name}_chars"] = stats.chars if stats else 0
    timing.counted["images"] = ch["image"].deltas if "image" in ch else 0
    timing.counted["audio_chunks"] = ch["audio"].deltas if "audio" in ch else 0
    timing.counted["audio_bytes"] = ch["audio"].chars if "audio" in ch else 0
    timing.counted["output_deltas"] = sum(
        timing.counted[f"{name}_deltas"] for name in ("text", "reasoning", "refusal", "tool_args")
    )
    return timing


def _milestones(timing: Timing, b: _Builder) -> list[Milestone]:
    def item_at(t: float | None, kind: str) -> int | None:
        if t is None:
            return None
        for i, k in enumerate(b.kinds):
            if k == kind and b.items[i].t_last == t:
                return i
        return None

    out: list[Milestone] = []
    if timing.t_headers is not None:
        out.append(Milestone("headers", "headers", timing.t_headers))
    if timing.t_first_byte is not None:
        out.append(Milestone("first_byte", "first byte", timing.t_first_byte))
    if timing.t_first_event is not None:
        out.append(Milestone("first_event", "first event", timing.t_first_event, 0))
    firsts = (
        # Named as protocol/figures.py names them (the answer's text is its first answer token).
        ("first_reasoning", "first thinking token", timing.t_first_reasoning, "reasoning"),
        ("first_text", "first answer token", timing.t_first_text, "text"),
        ("first_refusal", "first refusal", timing.t_first_refusal, "refusal"),
        ("first_tool_args", "first tool args", timing.t_first_tool_args, "tool_args"),
        (
            "first_image",
            "first partial image"
            if timing.t_first_partial_image is not None
            and timing.t_first_partial_image == timing.t_first_image
            else "first image",
            timing.t_first_image,
            "image",
        ),
        ("first_audio", "first audio", timing.t_first_audio, "audio"),
    )
    for key, label, t, kind in firsts:
        if t is not None:
            out.append(Milestone(key, label, t, item_at(t, kind)))
    if timing.t_end is not None:
        out.append(Milestone("end", "end", timing.t_end))
    out.sort(key=lambda m: m.t)
    return out


def _attribute_usage(timing: Timing, reported: dict[str, int]) -> None:
    """Give each channel its share of the reported output tokens where the split is unambiguous."""
    ch = timing.channels
    output = reported.get("output")
    reasoning = reported.get("reasoning")
    if reasoning is not None and "reasoning" in ch:
        ch["reasoning"].tokens_reported = reasoning
    if output is None:
        return
    rest = output - (reasoning or 0) if reasoning is not None or "reasoning" not in ch else None
    if rest is None or rest < 0:
        return
    visible = [n for n in ("text", "refusal", "tool_args") if n in ch]
    if len(visible) == 1:
        ch[visible[0]].tokens_reported = rest
