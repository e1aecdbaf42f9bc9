"""Chat's text template matched against a run of events' raw bytes, all in one pass (compiled).

fastpath.py builds the template and reads texts through it; this module is the part that runs
over every event of every read, so setup.py compiles it with mypyc beside the SSE parser (the
loop and its byte tests then run natively: measured, a fifth of the whole decode). It imports
nothing outside the standard library and the parser, so the build needs no other package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Final, cast

from playground.protocol.sse import SSEEvent, SSEItem
from playground.protocol.text_buffer import TextBuffer

__all__ = [
    "Template",
    "fold_run",
    "in_one_read",
    "match_in_place",
    "match_raws",
    "plain_text",
    "raws_of",
    "run_array",
    "run_texts",
]

# mypyc's build of this module is an extension module (setup.py): ``run_array`` takes its path.
_COMPILED: Final = not __file__.endswith((".py", ".pyc"))

# (b"data: " + head, tail + b"\n\n", len of the first, -len of the second), as UTF-8 bytes
Template = tuple[bytes, bytes, int, int]


def raws_of(items: Sequence[SSEItem]) -> list[bytes]:
    """Each item's raw bytes (compiled, a native read of each item's slot)."""
    return [item.raw for item in items]


def match_raws(raws: Sequence[bytes], tpl: Template) -> tuple[list[bytes], int] | None:
    """The middles of a run of events that all match ``tpl`` (each ``raw[cut:uncut]``), and the
    number of bytes the events hold; None if one does not match.

    ``raw`` is ``head + middle + tail`` exactly when it starts with ``head``, ends with ``tail``
    and is at least as long as both (they cannot overlap), and its middle is then
    ``raw[cut:uncut]``: one `data` line whose data is ``head + middle + tail`` minus the
    framing (fastpath.py's docstring).
    """
    head, tail, cut, uncut = tpl
    middles: list[bytes]
    if _COMPILED:
        # Native: one loop, its tests and slices without a call through the interpreter.
        need = cut - uncut
        middles = []
        size = 0
        for raw in raws:
            if len(raw) < need or not raw.startswith(head) or not raw.endswith(tail):
                return None
            middles.append(raw[cut:uncut])
            size += len(raw)
    else:
        # Interpreted, the same test as C calls over the whole run (a Python loop costs a fifth
        # of the decode more, measured): the middles cut out by ``map``, and ``head + middle +
        # tail`` for each, joined, equal to the raws joined. Each middle is as long as the raw
        # minus ``need`` when the raw is that long (else the rebuilt run is longer), so equal
        # runs put each raw exactly where its ``head + middle + tail`` is.
        middles = list(map(itemgetter(slice(cut, uncut)), raws))
        joined = b"".join(raws)
        if head + (tail + head).join(middles) + tail != joined:
            return None
        size = len(joined)
    return middles, size


def run_array(raws: Sequence[bytes], tpl: Template) -> tuple[bytes, int] | None:
    """``["m1","m2",...]``, the middles of a run of events that all match ``tpl``
    (``match_raws``), and the number of bytes the events hold; None if one does not match or
    the array would not hold exactly the middles as its strings.

    Why parsing that array gives each event's text (fastpath.template_texts parses it): with no
    quote in any middle and no ``\\"`` anywhere, the only quotes in the array are the ones put
    there, none of them escaped, so its strings are exactly the middles; parsing it checks every
    escape and rejects control characters (line ends included) and invalid UTF-8, as parsing
    each chunk would.
    """
    found = match_raws(raws, tpl)
    return None if found is None else _array_of(*found)


def _array_of(middles: list[bytes], size: int) -> tuple[bytes, int] | None:
    """``["m1","m2",...]`` and ``size``, or None unless its strings are exactly the middles
    (``middles`` is the caller's no more: its ends take the brackets, so the array is one join)."""
    if middles:
        middles[0] = b'["' + middles[0]
        middles[-1] += b'"]'
        array = b'","'.join(middles)
    else:
        array = b'[""]'
    if array.count(34) != 2 * len(middles) or b'\\"' in array:
        return None
    return array, size


def in_one_read(items: list[SSEItem]) -> bool:
    """Whether ``items`` are events lying back to back in the one read they share (the
    parser's usual read: ``SSEEvent._buf``), so ``match_in_place`` can match them where they
    lie."""
    first = items[0]
    if type(first) is not SSEEvent:
        return False
    buf = first._buf
    pos = first._at
    for item in items:
        if type(item) is not SSEEvent or item._buf is not buf or item._at != pos:
            return False
        pos = item._stop
    return True


def match_in_place(items: list[SSEItem], tpl: Template) -> tuple[list[bytes], int] | None:
    """``match_raws`` of ``items`` that are ``in_one_read``, matched in the read itself: no raw
    is sliced out, only the middles.

    ``head + middle + tail`` for each event, joined, is compared with the read's bytes from the
    first event's start: each middle is cut as ``raw[cut:uncut]`` of an event at least as long as
    ``head`` and ``tail`` together, so each rebuilt event is exactly as long as its own span, and
    the rebuilt run equals the bytes there exactly when each event equals its own rebuilt one.
    """
    head, tail, cut, uncut = tpl
    need = cut - uncut
    first = cast(SSEEvent, items[0])
    buf = first._buf
    begin = first._at
    stop = begin
    middles: list[bytes] = []
    for item in items:
        event = cast(SSEEvent, item)
        at = event._at
        stop = event._stop
        if stop - at < need:
            return None
        middles.append(buf[at + cut : stop + uncut])
    # Compared in place, in three parts: no copy of the whole run is made to compare it.
    if not (
        buf.startswith(head, begin)
        and buf.startswith((tail + head).join(middles), begin + len(head))
        and buf.startswith(tail, stop - len(tail))
    ):
        return None
    return middles, stop - begin


def plain_text(middles: list[bytes]) -> tuple[str, list[int]] | None:
    """The text of a run's middles read as JSON string bodies, as one str, and each one's length
    in characters; None unless each is plain: UTF-8 with no quote, no control character and no
    escape but ``\\n`` (``run_array``'s parse reads the rest).

    Most reads of a chat stream are such text: one str for the read instead of one a token, and
    no JSON parse. What it checks is exactly what JSON allows unescaped in a string (RFC 8259
    §7: anything but a quote, a backslash and U+0000..U+001F), so the text is the one parsing
    would give. Invalid UTF-8 fails the strict decode of the whole run, and a middle that begins
    with a continuation byte (0b10xxxxxx) is refused, so each middle is valid on its own too.
    A character's length is its lead byte (every byte but a continuation byte begins one);
    ``\\n`` is one character.
    """
    sizes: list[int] = []
    escaped = False
    for middle in middles:
        end = len(middle)
        if end and middle[0] & 0xC0 == 0x80:
            return None  # a character cut between two events: not one piece of text each
        chars = 0
        i = 0
        while i < end:
            byte = middle[i]
            if byte < 32 or byte == 34:
                return None
            if byte == 92:
                if i + 1 == end or middle[i + 1] != 110:
                    return None
                escaped = True
                i += 2
            else:
                if byte & 0xC0 != 0x80:
                    chars += 1
                i += 1
                continue
            chars += 1
        sizes.append(chars)
    try:
        text = b"".join(middles).decode()
    except UnicodeDecodeError:
        return None
    # Every backslash left begins a `\n` (checked above, each within its own middle).
    return (text.replace("\\n", "\n") if escaped else text), sizes


def _texts_of(
    found: tuple[bytes, int] | None, count: int, loads: Callable[[bytes], object]
) -> tuple[list[str], int] | None:
    """The ``count`` strings of a run's array (``run_array``), parsed, and its size."""
    if found is None:
        return None
    array, size = found
    try:
        texts = loads(array)
    except ValueError:  # orjson.JSONDecodeError is one
        return None
    if type(texts) is not list or len(texts) != count:
        return None
    return texts, size


def run_texts(
    raws: Sequence[bytes], tpl: Template, loads: Callable[[bytes], object]
) -> tuple[list[str], int] | None:
    """The texts of a run of events that all match ``tpl``, in order, and the number of bytes
    they hold; None if one does not. ``loads`` is orjson's (passed in: the build has no orjson)."""
    return _texts_of(run_array(raws, tpl), len(raws), loads)


def fold_run(
    items: Sequence[SSEItem], tpl: Template, loads: Callable[[bytes], object], text: TextBuffer
) -> int:
    """Add the texts of a read's events to ``text`` (item by item) when every one matches
    ``tpl``, and return the number of bytes the events hold; -1, with nothing added, if one does
    not. One call for the whole read: compiled, the match and the fold run natively, the events
    of one read are matched where they lie in it, and plain text is added as one piece."""
    # A list (what the parser returns): compiled, its items are then read without an iterator.
    if isinstance(items, list) and in_one_read(items):
        found = match_in_place(items, tpl)
    else:
        found = match_raws(raws_of(items), tpl)
    if found is None:
        return -1
    middles, size = found
    first = items[0].index
    plain = plain_text(middles)
    if plain is not None:
        text.extend_run(plain[0], plain[1], first)
        return size
    parsed = _texts_of(_array_of(middles, size), len(items), loads)
    if parsed is None:
        return -1
    text.extend(parsed[0], range(first, first + len(items)))
    return size
