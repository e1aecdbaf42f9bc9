"""`playground inspect FILE`: a capture or raw SSE decoded, its final state (docs/design.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Container, Sequence
from pathlib import Path
from typing import Any

import orjson

from playground.cli.usage import OneLineParser, UsageError
from playground.protocol import safe_json
from playground.protocol.accounting.usage import usage_from_wire
from playground.protocol.capture import Capture, named_route, read_capture
from playground.protocol.projection import state_json as project
from playground.protocol.routes import ROUTE_NAMES
from playground.protocol.sse import SSEComment, SSEEvent, SSEItem, SSEUnterminated
from playground.protocol.stream import StreamDecoder

__all__ = ["decode_file", "main", "state_json"]

EXIT_OK = 0
EXIT_USAGE = 2


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of bytes: {text!r}")
    return value


def _parser() -> OneLineParser:
    parser = OneLineParser(
        prog="playground inspect",
        description="Decode a stream (raw SSE as `curl -N` prints it, or a playground capture) "
        "and print what it holds.",
    )
    parser.add_argument("file", help="raw SSE file or playground-capture/1 file")
    parser.add_argument(
        "--route",
        default="auto",
        choices=("auto", *ROUTE_NAMES),
        help="route grammar to read the stream with (default: recognise it from the events)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the final state as one JSON object"
    )
    parser.add_argument(
        "--events", action="store_true", help="print one JSON line per SSE event / comment"
    )
    parser.add_argument(
        "--chunk-size",
        type=_positive,
        default=None,
        metavar="N",
        help="feed the bytes in N-byte pieces (the output does not change with N)",
    )
    return parser


def decode_file(data: bytes, route: str = "auto", chunk_size: int | None = None) -> StreamDecoder:
    """Decode raw SSE or capture bytes into a finished StreamDecoder (never raises on content)."""
    return decode_capture(read_capture(data), route, chunk_size)


def decode_capture(
    capture: Capture, route: str = "auto", chunk_size: int | None = None
) -> StreamDecoder:
    """``decode_file`` of a capture already read."""
    if route == "auto":  # raw SSE, and a capture naming no route, are recognised by events
        route = named_route(capture) or "auto"
    # A playground capture holds the request: the checks that know what was asked run on it.
    # Raw SSE has none, and then they do not run.
    sent = capture.request.get("body") if capture.request is not None else None
    decoder = StreamDecoder(route, request=sent if isinstance(sent, dict | str) else None)
    status = capture.response_status
    if status is not None and not 200 <= status < 300:
        decoder.fail_before_stream(
            status,
            capture.body,
            capture.content_type,
            capture.header("retry-after"),
        )
        return decoder
    decoder.set_content_type(capture.content_type)
    if chunk_size is None:
        last = 0.0
        for t, chunk in capture.chunks:
            decoder.feed(chunk, t)
            last = t
        decoder.finish(capture.end_t if capture.end_t is not None else last)
    else:
        body = capture.body
        for start in range(0, len(body), chunk_size):
            decoder.feed(body[start : start + chunk_size], 0.0)
        decoder.finish(0.0)
    return decoder


def state_json(decoder: StreamDecoder) -> dict[str, Any]:
    """The `--json` object: the one projection of the decoded state (protocol/projection.py),
    and its usage normalised (protocol/accounting/usage.py; null when there is none)."""
    usage = usage_from_wire(decoder.state.usage)
    return project(decoder.state) | {
        "route": decoder.route,
        "usage_normalised": usage.to_json() if usage is not None else None,
    }


def _body_value(item: SSEEvent) -> Any:
    """A whole body as JSON when it is JSON, else as text."""
    try:
        return safe_json.loads(item.raw)
    except ValueError:
        return item.raw.decode("utf-8", "replace")


def _event_line(item: SSEItem, bodies: Container[int] = ()) -> dict[str, Any]:
    """One `--events` line. A body that is not SSE (a JSON answer or error) dispatches no event
    by the WHATWG rules, so it gets a line kind of its own: ``{"body": ...}``."""
    if isinstance(item, SSEEvent) and item.index in bodies:
        return {"body": _body_value(item)}
    if isinstance(item, SSEComment):
        return {"comment": item.text}
    if isinstance(item, SSEUnterminated):
        return {
            "unterminated": {
                "event": item.event,
                "data": item.data,
                "fields": item.fields,
                "raw": item.raw.decode("utf-8", "replace"),
            }
        }
    assert isinstance(item, SSEEvent)
    if item.event == "audio" and not item.raw and not item.data:
        return {"audio": item.end - item.start}
    return {"event": item.event, "data": item.data, "id": item.id, "retry": item.retry}


def _short(text: str, limit: int = 2000, length: int | None = None) -> str:
    """``text`` cut to ``limit`` characters; ``length``: the whole text's, when ``text`` is
    only its start."""
    length = len(text) if length is None else length
    return text if length <= limit else text[:limit] + f"… (+{length - limit} chars)"


def _human(decoder: StreamDecoder) -> str:
    state = decoder.state
    lines = [f"route:      {decoder.route}", f"status:     {state.status}"]
    lines.append(f"finish:     {state.finish if state.finish is not None else '-'}")
    if state.error is not None:
        err = state.error
        extra = ", ".join(
            f"{k} {v}"
            for k, v in (("type", err.type), ("code", err.code), ("HTTP", err.status))
            if v
        )
        lines.append(f"error:      {err.message}" + (f" ({extra})" if extra else ""))
    lines.append(f"events:     {state.events} events, {state.comments} comments")
    if len(state.choices) > 1:
        for index, choice in sorted(state.choices.items()):
            lines.append(f"choice {index} [{choice.finish or '-'}]: {_short(choice.text.value)!r}")
    if state.reasoning:
        lines.append("reasoning:")
        lines.extend("  " + line for line in _short(state.reasoning).splitlines())
    if state.signatures:
        kinds = sorted({kind for kind, _ in state.signatures})
        lines.append(f"opaque reasoning: {len(state.signatures)} ({', '.join(kinds)})")
    if state.refusal:
        lines.append(f"refusal:    {state.refusal}")
    lines.append("text:" if state.text else "text:       (none)")
    if state.text:
        lines.extend("  " + line for line in _short(state.text).splitlines())
    if state.tool_calls:
        lines.append("tool calls:")
        for call in state.tool_calls:
            tag = " (server)" if call.server else ""
            ok = "valid JSON" if call.valid_json else "not valid JSON yet"
            lines.append(f"  {call.name or '?'} {call.id or ''}{tag} [{ok}]")
            # Its first characters only: megabytes of arguments are not joined to show 400.
            args = call.arguments
            lines.append(f"    {_short(args.head(401), 400, len(args))}")
    for image in state.images:
        kind = "final" if image.final else f"partial #{image.index}"
        size = f"{image.width}x{image.height}" if image.width else "?x?"
        lines.append(f"image:      {kind} {size} {image.output_format or '?'} {len(image.data)} B")
    if state.audio is not None:
        audio = state.audio
        lines.append(
            f"audio:      {audio.format or '?'} {len(audio.data)} B in {audio.chunks} chunks"
            + (f", {audio.seconds:.2f} s" if audio.seconds else "")
        )
    for seg in state.segments:
        span = f"{seg.get('start')}-{seg.get('end')}"
        lines.append(f"segment:    {seg.get('speaker') or '-'} {span}: {seg.get('text')}")
    if state.usage is not None:
        lines.append("usage:      " + orjson.dumps(state.usage).decode())
    if state.findings:
        lines.append(f"findings ({len(state.findings)}):")
        for f in state.findings:
            where = f"@{f.item}" if f.item is not None else "@-"
            lines.append(f"  {f.severity:<7} {f.code:<22} {where:<6} {_short(f.message, 300)}")
        for code, count in state.findings_omitted.items():
            lines.append(f"  and {count:,} more {code} (counted, not kept)")
    else:
        lines.append("findings:   none")
    return "\n".join(lines) + "\n"


def _figures(capture: Capture, decoder: StreamDecoder) -> str:
    """The run's headline figures, named and computed as every view does (protocol/figures.py);
    empty for raw SSE, which has no arrival times."""
    from playground.protocol.figures import FIGURES, figure_values
    from playground.protocol.timing import compute_timing
    from playground.protocol.timing_format import format_seconds

    if capture.raw or not capture.chunks:
        return ""
    first_byte = next((t for t, chunk in capture.chunks if chunk), None)
    timing = compute_timing(decoder, capture.response_at, first_byte, t_end=capture.end_t)
    values = figure_values(timing)
    shown = [
        f"{f.name} {format_seconds(values[f.key])}" for f in FIGURES if values[f.key] is not None
    ]
    return f"timing:     {' · '.join(shown)}\n" if shown else ""


def _fail(message: str) -> int:
    sys.stderr.write(f"playground inspect: {message}".replace("\n", " ") + "\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(args_list)
    except UsageError as exc:
        return _fail(str(exc))
    path = Path(args.file)
    try:
        if path.is_dir():
            return _fail(f"{args.file}: is a directory")
        # Only the capture is kept (its chunks are the timeline's raw bytes), not the file too:
        # raw SSE is read from the file a piece at a time.
        capture = read_capture(path)
    except FileNotFoundError:
        return _fail(f"{args.file}: no such file")
    except OSError as exc:
        return _fail(f"{args.file}: cannot read ({exc.strerror or exc.__class__.__name__})")
    decoder = decode_capture(capture, args.route, args.chunk_size)
    out = sys.stdout.buffer
    try:
        if args.events:
            for item in decoder.items:
                out.write(orjson.dumps(_event_line(item, decoder.bodies)) + b"\n")
        if args.json:
            out.write(orjson.dumps(state_json(decoder), option=orjson.OPT_NON_STR_KEYS) + b"\n")
        if not args.events and not args.json:
            text = _human(decoder)
            if args.chunk_size is None:  # re-cut bytes have no arrival times of their own
                text += _figures(capture, decoder)
            out.write(text.encode("utf-8", "replace"))
        out.flush()
    except BrokenPipeError:
        # `| head` closed the pipe: that is the reader's choice, not an error.
        sys.stdout = None
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
