"""A run's timing as people read it: durations (``250 ms``, ``1.50 s``), rates, the figures table.

Pure; the timing dock and compare show these strings (ui/docks/timing.py, ui/compare/window.py).
"""

from __future__ import annotations

from playground.protocol.figures import BY_KEY, figure_values
from playground.protocol.timing_types import Timing

__all__ = ["CHANNEL_LABELS", "figures", "format_rate", "format_seconds"]

CHANNEL_LABELS: dict[str, str] = {
    "text": "text",
    "reasoning": "thinking",
    "refusal": "refusal",
    "tool_args": "tool args",
    "image": "image",
    "audio": "audio",
    "comment": "comments",
    "error": "errors",
    "meta": "other",
}


def format_seconds(t: float | None) -> str:
    """``0.25`` -> ``250 ms``; ``1.5`` -> ``1.50 s``; ``None`` -> an em dash."""
    if t is None:
        return "—"
    a = abs(t)
    if a == 0:
        return "0"
    if a < 0.001:
        return f"{t * 1e6:.0f} µs"
    if a < 1:
        return f"{t * 1000:.0f} ms" if a >= 0.01 else f"{t * 1000:.1f} ms"
    if a < 60:
        return f"{t:.2f} s"
    return f"{int(t // 60)} min {t % 60:.0f} s"


def format_rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}/s"


def figures(timing: Timing) -> list[tuple[str, str]]:
    """The compact table: (figure, value) rows in reading order."""
    # The headline figures by their one name and definition (protocol/figures.py), then the
    # first of each other kind of output.
    values = figure_values(timing)
    rows: list[tuple[str, str]] = [
        (BY_KEY[key].name, format_seconds(values[key]))
        for key in ("headers", "first_byte", "first_token")
    ]
    for label, t in (
        (BY_KEY["first_thinking"].name, values["first_thinking"]),
        (BY_KEY["first_answer"].name, values["first_answer"]),
        ("first refusal", timing.t_first_refusal),
        (BY_KEY["first_tool_args"].name, values["first_tool_args"]),
        ("first partial image", timing.t_first_partial_image),
        ("first image", timing.t_first_image if timing.t_first_partial_image is None else None),
        ("first audio", timing.t_first_audio),
    ):
        if t is not None:
            rows.append((label, format_seconds(t)))
    rows.append(("total", format_seconds(timing.duration)))
    for name in ("text", "reasoning", "refusal", "tool_args"):
        stats = timing.channels.get(name)
        if stats is None:
            continue
        source = "usage" if stats.tokens_source == "usage" else "≈1 per delta"
        rows.append(
            (
                f"{CHANNEL_LABELS[name]} tokens/s",
                f"{format_rate(stats.tokens_per_second)}  ({stats.tokens} tok, {source})",
            )
        )
    audio = timing.channels.get("audio")
    if audio is not None:
        rows.append(("audio", f"{audio.deltas} chunks, {audio.chars:,} B"))
    rows.append(("events", f"{len(timing.times):,} ({timing.counted.get('comments', 0)} comments)"))
    rows.append(("median gap", format_seconds(timing.median_gap)))
    longest = timing.longest_gap
    if longest is not None:
        rows.append(("longest gap", f"{format_seconds(longest.seconds)} before #{longest.before}"))
    rows.append(
        (
            "dead air",
            f"{len(timing.dead_air)} × > {format_seconds(timing.dead_air_threshold)}"
            f" = {format_seconds(timing.dead_air_total)}",
        )
    )
    reported = timing.usage_reported
    if reported:
        parts = [f"{k} {v:,}" for k, v in reported.items()]
        rows.append(("usage reported", ", ".join(parts)))
    else:
        rows.append(("usage reported", "none"))
    counted = timing.counted
    rows.append(
        (
            "counted",
            f"text {counted.get('text_deltas', 0)} deltas / {counted.get('text_chars', 0):,} chars"
            f", thinking {counted.get('reasoning_deltas', 0)} / "
            f"{counted.get('reasoning_chars', 0):,}"
            + (
                f", tool args {counted.get('tool_args_deltas', 0)} / "
                f"{counted.get('tool_args_chars', 0):,}"
                if counted.get("tool_args_deltas")
                else ""
            ),
        )
    )
    return rows
