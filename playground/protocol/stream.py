"""StreamDecoder: bytes in, timeline items and a folded StreamState out, for any route."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, Final

import orjson

from playground.protocol.asked import NOTHING_ASKED, Asked, asked_from
from playground.protocol.decoders.base import RouteDecoder
from playground.protocol.decoders.whole import report_audio_body
from playground.protocol.event_json import LONG_EVENT, is_done, loads_long, too_deep
from playground.protocol.events import StreamEvent
from playground.protocol.fastpath import Template, build_template, string_body
from playground.protocol.findings import FindingSink
from playground.protocol.media import LetterRuns
from playground.protocol.routes import ROUTE_NAMES, make_decoder
from playground.protocol.safe_json import MAX_DEPTH, JsonTooDeep, exceeds_depth_in_pieces
from playground.protocol.sse import (
    SSEComment,
    SSEEvent,
    SSEItem,
    SSEParser,
    SSEUnterminated,
)
from playground.protocol.state import Finding, StreamState
from playground.protocol.stream_bodies import BodyModes
from playground.protocol.stream_route import RouteChoice
from playground.protocol.template_match import fold_run
from playground.protocol.terminators import (
    report_no_terminator,
)
from playground.protocol.timeline_items import TimelineItems
from playground.protocol.utf8check import Utf8Watch

__all__ = ["StreamDecoder"]

_loads: Final = orjson.loads
_JSONError: Final = orjson.JSONDecodeError
_CACHE_MAX: Final = 512  # parsed payloads kept by payload() (rows on screen); restarts when full
_INVALID: Final = object()
_SIZE: Final = attrgetter("size")
_LETTER_READ: Final = LetterRuns.MIN_READ
_UNCHECKED_MAX: Final = 64  # reads held for a UTF-8 check before it is done anyway
# After this many template builds that did not pay off, stop trying (e.g. a provider that adds a
# random `obfuscation` field to every chunk: the template never matches twice).
_TEMPLATE_TRIES: Final = 32


class StreamDecoder(RouteChoice, BodyModes):
    """Feed bytes with arrival times; read ``items`` (the timeline) and ``state`` (what they mean).

    Nothing the bytes contain raises: invalid JSON, unknown shapes and decoder bugs all become
    findings on the item that caused them (docs/protocol.md §0, docs/design.md "Seams").

    ``request`` is the request body as sent (a JSON object, or its bytes), when it is known: the
    checks that hold the answer to what was asked (a stream asked for but one body answered,
    ``include_usage`` without a usage chunk, fewer partial images than asked) run only then.
    ``stream_requested`` overrides what the request says about streaming; with neither, a JSON
    body is taken as an answer to a stream request (the playground always asks for one).
    """

    def __init__(
        self,
        route: str = "auto",
        *,
        request: Mapping[str, Any] | bytes | str | None = None,
        audio_format: str | None = None,
        stream_requested: bool | None = None,
    ) -> None:
        if route not in ROUTE_NAMES and route != "auto":
            raise ValueError(f"unknown route {route!r}")
        self.route = route
        self._request = request
        self.asked: Asked = asked_from(route, request) if request is not None else NOTHING_ASKED
        # Timeline items that are a whole body, not an event the SSE parser dispatched (a JSON
        # answer, an HTTP error body): `inspect --events` prints them as {"body": ...}.
        self.bodies: set[int] = set()
        self._done_seen = False  # a `data: [DONE]` arrived (named when the terminator never did)
        self.state = StreamState(route=route)
        self.state.audio_format_hint = audio_format
        self.items = TimelineItems()  # repeats of an unreadable item fold (a flood of them)
        self._repeats: list[int] = []  # items of the read being taken that may fold
        self._sink = FindingSink(self.state.findings, self.state.findings_omitted)
        self._parser = SSEParser()
        self._decoder: RouteDecoder | None = None
        self._fast: Callable[[SSEEvent, Any], str | None] | None = None
        self._tpl: Template | None = None  # chat's text-chunk template (fastpath.py)
        self._tpl_tries = 0
        self._bad_seen = 0  # state.bad_data entries already reported
        self._utf8 = Utf8Watch()
        self._letters = LetterRuns()  # long reads of base64 text, checked as they come
        # Bytes not yet validated as UTF-8, from stream offset _unchecked_at: validated when
        # the items they complete are known, unless those items prove them valid (_take).
        self._unchecked: list[bytes] = []
        self._unchecked_at = 0
        if route != "auto":
            self._use(make_decoder(route, self._sink, self.asked))
        # Until a content type says otherwise, the first bytes decide: a JSON body (an error or a
        # whole answer where a stream was asked for), raw audio (music's stream_url sends WAV),
        # or, as almost always, SSE.
        self._mode = "sniff"
        self._pending: list[tuple[bytes, float]] = []  # reads held until the kind is known
        self._body = bytearray()
        self._body_t: tuple[float, float] | None = None
        if stream_requested is None and self.asked.known:
            stream_requested = self.asked.stream
        self._stream_requested = stream_requested
        self._audio_item: int | None = None  # the first piece of a raw audio body
        self._audio_held = bytearray()  # raw audio not yet a whole block (stream_bodies.py)
        self._audio_at = 0  # the stream offset of the held bytes
        self._audio_t = 0.0  # when the held bytes began to arrive
        self._cache: dict[int, Any] = {}
        self._out: list[StreamEvent] = []
        self._bytes = 0
        self._finished = False

    # -- the pipeline API ------------------------------------------------------------------

    def feed(self, chunk: bytes, t: float) -> Sequence[SSEItem]:
        """Take one network chunk; return the timeline items it completed (state is updated)."""
        if not chunk or self._finished:
            return ()
        if self._mode == "sniff":
            return self._sniff_feed(chunk, t)
        return self._feed_known(chunk, t)

    def _feed_known(self, chunk: bytes, t: float) -> Sequence[SSEItem]:
        """Take one chunk once the body's kind (SSE, one JSON body, raw audio) is known."""
        self._bytes += len(chunk)
        mode = self._mode
        if mode == "sse":
            offset = self._bytes - len(chunk)
            unchecked = self._unchecked
            if not unchecked:
                self._unchecked_at = offset
            unchecked.append(chunk)
            if len(chunk) >= _LETTER_READ and 10 not in chunk:
                self._letters.note(offset, chunk)  # a long line arriving: an image's base64?
            items = self._parser.feed(chunk, t)
            if items:
                size = self._take(items)
                start = items[0].start
                end = items[-1].end
                if size >= 0 and start <= self._unchecked_at and end - start == size:
                    # Every byte up to the last item is in one of them, and each matched chat's
                    # text template: valid UTF-8 (fastpath.py). Only what follows is unchecked.
                    rest = chunk[end - offset :]
                    self._unchecked = [rest] if rest else []
                    self._unchecked_at = end
                    self._utf8.resync()
                else:
                    self._check_utf8()
                    if self._utf8.bad:
                        self._utf8.tie(items, self._sink)
            elif len(unchecked) > _UNCHECKED_MAX:
                self._check_utf8()  # a long line: keep no second list of its pieces
            return items
        if mode == "json":
            if self._body_t is None:
                self._body_t = (t, t)
            else:
                self._body_t = (self._body_t[0], t)
            self._body += chunk
            return ()
        return self._audio(chunk, t)

    def finish(self, t: float) -> list[SSEItem]:
        """The bytes ended: flush what is left, report what never closed, settle the status."""
        if self._finished:
            return []
        out: list[SSEItem] = []
        if self._mode == "sniff" and self._pending:
            out.extend(self._sniff_feed(b"", t, final=True))
        self._finished = True
        state = self.state
        if self._mode in ("sse", "sniff"):
            self._check_utf8()
            self._utf8.flush(self._bytes)
            rest = self._parser.finish(t)
            if rest:
                self._take(rest)
            out.extend(rest)
            if self._utf8.bad:
                self._utf8.tie(rest or self.items[-1:], self._sink, final=True)
        elif self._mode == "json":
            out.extend(self._whole(t))
        else:
            out.extend(self._audio_rest(t))
            state.terminated = True  # a raw audio body ends when its bytes do
            if self._stream_requested and self._audio_item is not None:
                report_audio_body(self._sink, self._audio_item)  # only when the request says so
        self._report_bad()
        if self._bytes == 0 and state.status == "streaming":
            self._sink.report("empty_stream", "the response body was empty", None)
        decoder = self._decoder
        if decoder is not None and state.status != "cancelled":
            try:
                decoder.finish(terminated=state.terminated, failed=state.error is not None)
            except Exception as exc:  # pragma: no cover - defensive boundary
                self._sink.report("decoder_error", f"finish: {exc!r}", None)
        for call in state.tool_calls:
            if exceeds_depth_in_pieces(call.arguments.pieces()):
                self._sink.report(
                    "json_too_deep",
                    f"tool call {call.name or call.id or ''}'s arguments nest deeper than "
                    f"{MAX_DEPTH} levels: kept as text, not read",
                    None,
                )
        if self.asked.schema is not None and state.status != "cancelled":
            from playground.protocol.structured import check_answer

            check_answer(self.asked.schema, state, self._sink)
        if not state.terminated and state.error is None and state.status == "streaming":
            last = self.items[-1].index if self.items else None
            report_no_terminator(self.route, self._sink, last, self._done_seen)
        state.finalize()  # keeps "cancelled"; otherwise failed > truncated > incomplete > complete
        return out

    def cancel(self) -> None:
        """The user stopped it: ``cancelled`` unless the stream already reached a final status or
        its route's terminator. After the terminator nothing was cut short (docs/protocol.md §0
        calls that ``complete``): a client such as the openai SDK closes the connection as soon as
        it reads ``[DONE]``, before the body's last chunk, and a Stop in that gap is late."""
        if self.state.status == "streaming" and not self.state.terminated:
            self.state.status = "cancelled"

    def payload(self, item_index: int) -> object | None:
        """The parsed JSON of an event's data (cached); None for comments, ``[DONE]``, bad JSON."""
        cached: object | None = self._cache.get(item_index, _INVALID)
        if cached is not _INVALID:
            return cached
        if not 0 <= item_index < len(self.items):
            return None
        item = self.items[item_index]
        if type(item) is not SSEEvent or is_done(item.data):
            return None
        value: object | None
        try:
            value = None if too_deep(item) else _loads(item.data)
        except _JSONError:
            value = None
        self._remember(item_index, value)
        return value

    def findings_for(self, item_index: int) -> list[Finding]:
        return self._sink.for_item(item_index)

    def omitted_rank(self, item_index: int) -> int:
        """The worst severity rank of the item's findings that were counted, not stored."""
        return self._sink.rank_of(item_index)

    @property
    def findings(self) -> list[Finding]:
        return self.state.findings

    # -- internals -------------------------------------------------------------------------

    def _remember(self, index: int, value: Any) -> None:
        cache = self._cache
        if len(cache) >= _CACHE_MAX:
            cache.clear()  # cheap, and the inspector asks for the rows on screen again anyway
        cache[index] = value

    def _take(self, items: Sequence[SSEItem]) -> int:
        """Fold ``items`` into the state; when every one matched chat's text template (so its
        bytes are known to be valid UTF-8: fastpath.py), the number of bytes they hold, else -1."""
        # The hot loop (the decode benchmark measures it): locals only, at most one JSON parse
        # per event, none for chat text chunks that match the template (fastpath.py), and those
        # added to the text buffer in one go (`_flush`) before anything else touches the state.
        self.items.extend(items)
        tpl = self._tpl
        if tpl is not None and len(items) > 1:
            # A whole read of plain text chunks (a loaded socket's 4 KiB): one match for all
            # (template_match.fold_run), before the per-event loop's set-up. No type check: a
            # comment's bytes cannot match (they do not start with `data: `).
            # Choice 0 exists: the template is built right after text went there.
            size = fold_run(items, tpl, _loads, self.state.choices[0].text)
            if size >= 0:
                self.state.events += len(items)
                return size
        state = self.state
        loads = _loads
        out = self._out
        apply = state.apply
        fast = self._fast
        texts: list[str] = []
        origins: list[int] = []
        add_text = texts.append
        add_origin = origins.append
        head = tail = b""
        cut = uncut = need = 0
        if tpl is not None:
            head, tail, cut, uncut = tpl
            need = cut - uncut
        text: str | None
        events = 0
        matched = 0
        try:
            for item in items:
                if type(item) is not SSEEvent:
                    if texts:
                        self._flush(texts, origins)
                    self._other(item)
                    continue
                events += 1
                if tpl is not None:
                    # A chat text chunk shaped like the last one: its text straight from its raw
                    # bytes, without decoding the rest or a JSON parse (fastpath.py). The template
                    # exists only while the chat decoder's own state would let `plain_text`
                    # accept the chunk (any other event drops it, below).
                    raw = item.raw
                    if raw.startswith(head) and raw.endswith(tail) and len(raw) >= need:
                        try:
                            text = raw[cut:uncut].decode()
                        except UnicodeDecodeError:
                            text = None  # the full path decodes it with U+FFFD, as `data` does
                        else:
                            if '"' in text or "\\" in text or not text.isprintable():
                                text = string_body(text)
                        if text is not None:
                            matched += 1
                            if text:
                                add_text(text)
                                add_origin(item.index)
                            continue
                    tpl = None
                # A long event (a partial image) is parsed from its bytes: no str of it is made
                # (it cannot be `[DONE]` or a template chunk, which is all `data` is read for).
                long = item.size > LONG_EVENT
                data = "" if long else item.data
                if texts:
                    self._flush(texts, origins)
                if data[:1] != "{" and is_done(data):
                    tpl = None
                    self._done(item)
                    continue
                try:
                    if long:
                        payload = loads_long(item, self._letters)
                    elif too_deep(item):
                        # orjson would read it (to 1,024 levels), and every walk after it
                        # (json.dumps, a view, a projection) would recurse that deep.
                        raise JsonTooDeep(MAX_DEPTH)
                    else:
                        payload = loads(data)
                except JsonTooDeep:
                    self._sink.report(
                        "json_too_deep",
                        f"data nests deeper than {MAX_DEPTH} levels: kept as text, not read",
                        item.index,
                    )
                    continue
                except _JSONError as exc:
                    self._sink.report("invalid_json", f"data is not JSON: {exc}", item.index)
                    self._repeats.append(item.index)
                    continue
                # Payloads are not kept: payload() re-parses on demand (memory per raw byte).
                if fast is not None and not state.terminated:
                    text = fast(item, payload)
                    if text is not None:
                        if text:
                            found = state.choices.get(0)
                            if found is None:
                                found = state.choice(0)
                            found.text.append(text, item.index)
                            if tpl is None and self._tpl_tries < _TEMPLATE_TRIES:
                                self._tpl_tries += 1
                                tpl = build_template(data, payload)
                                if tpl is not None:
                                    head, tail, cut, uncut = tpl
                                    need = cut - uncut
                        continue
                tpl = None
                decoder = self._decoder
                if decoder is None:
                    decoder = self._detect(item, payload)
                    if decoder is None:
                        self._undecided(item, payload)
                        continue
                    fast = self._fast
                if state.terminated:
                    self._check_after_terminal(decoder, item, payload)
                out.clear()
                try:
                    decoder.decode(item, payload, out)
                except Exception as exc:
                    self._sink.report(
                        "decoder_error", f"could not read this event: {exc!r}", item.index
                    )
                if out:
                    index = item.index
                    t = item.t_last
                    for event in out:
                        try:
                            apply(event, index, t)
                        except Exception as exc:  # pragma: no cover - defensive boundary
                            self._sink.report(
                                "decoder_error",
                                f"could not fold {event!r}: {exc!r}",
                                index,
                            )
                    if len(state.bad_data) != self._bad_seen:
                        self._report_bad()
        finally:
            if texts:
                self._flush(texts, origins)
            state.events += events
            self._tpl = tpl
            if self._repeats:
                self.items.fold_repeats(self._repeats)
                self._repeats.clear()
        return sum(map(_SIZE, items)) if matched == len(items) else -1

    def _report_bad(self) -> None:
        """``bad_base64`` at the event whose base64 did not decode, as soon as it is folded."""
        bad = self.state.bad_data
        while self._bad_seen < len(bad):
            item = bad[self._bad_seen]
            self._bad_seen += 1
            self._sink.report(
                "bad_base64",
                "base64 payload does not decode (kept its valid prefix)",
                item,
            )

    def _flush(self, texts: list[str], origins: list[int]) -> None:
        """Add the template path's collected text to choice 0 (it exists: the template was built
        right after text went there) and empty the lists for the next run."""
        self.state.choices[0].text.extend(texts, origins)
        texts.clear()
        origins.clear()

    def _check_utf8(self) -> None:
        """Validate the bytes not yet checked (findings wait in ``_utf8.bad`` for their item)."""
        unchecked = self._unchecked
        if unchecked:
            # A piece at a time (the watch carries a sequence cut between two): joined first, a
            # 2.7 MB partial image's 42 reads cost a 2.7 MB copy on the reader thread (1-2 ms of
            # its fold) to be found ASCII.
            self._unchecked = []
            offset = self._unchecked_at
            check = self._utf8.check
            for piece in unchecked:
                check(piece, offset)
                offset += len(piece)

    def _other(self, item: SSEItem) -> None:
        if type(item) is SSEComment:
            self.state.comments += 1
            self._repeats.append(item.index)
        elif type(item) is SSEUnterminated:
            size = item.size  # an endless line's megabytes are not joined for the message
            more = f" (+{size - 200} bytes)" if size > 200 else ""
            self._sink.report(
                "unterminated_event",
                "the stream ended inside an event (no blank line after it), so it was "
                f"never dispatched: {item.head(200)!r}{more}",
                item.index,
            )

    def _apply(self, event: StreamEvent, ev: SSEEvent) -> None:
        try:
            self.state.apply(event, ev.index, ev.t_last)
        except Exception as exc:  # pragma: no cover - defensive boundary
            self._sink.report("decoder_error", f"could not fold {event!r}: {exc!r}", ev.index)
        if len(self.state.bad_data) != self._bad_seen:
            self._report_bad()
