"""Chat's text template matched against a run of events' raw bytes, all in one pass (compiled).

fastpath.py builds the template and reads texts through it; this module is the part that runs
over every event of every read, so setup.py compiles it with mypyc beside the SSE parser (the
loop and its byte tests then run natively: measured, a fifth of the whole decode). It imports
nothing outside the standard library and the parser, so the build needs no other package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Final

from playground.protocol.sse import SSEItem
from playground.protocol.text_buffer import TextBuffer

__all__ = ["Template", "fold_run", "raws_of", "run_array", "run_texts"]

# mypyc's build of this module is an extension module (setup.py): ``run_array`` takes its path.
_COMPILED: Final = not __file__.endswith((".py", ".pyc"))

# (b"data: " + head, tail + b"\n\n", len of the first, -len of the second), as UTF-8 bytes
Template = tuple[bytes, bytes, int, int]


def raws_of(items: Sequence[SSEItem]) -> list[bytes]:
    """Each item's raw bytes (compiled, a native read of each item's slot)."""
    return [item.raw for item in items]


def run_array(raws: Sequence[bytes], tpl: Template) -> tuple[bytes, int] | None:
    """``["m1","m2",...]``, the middles of a run of events that all match ``tpl``, and the number
    of bytes the events hold; None if one does not match or the array would not hold exactly
    the middles as its strings.

    Why parsing that array gives each event's text (fastpath.template_texts parses it):
    - ``raw`` is ``head + middle + tail`` exactly when it starts with ``head``, ends with ``tail``
      and is at least as long as both (they cannot overlap), and its middle is then
      ``raw[cut:uncut]``: one `data` line whose data is ``head + middle + tail`` minus the
      framing (fastpath.py's docstring).
    - With no quote in any middle and no ``\\"`` anywhere, the only quotes in the array are the
      ones put there, none of them escaped, so its strings are exactly the middles; parsing it
      checks every escape and rejects control characters (line ends included) and invalid
      UTF-8, as parsing each chunk would.
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
    array = b'["' + b'","'.join(middles) + b'"]'
    if array.count(34) != 2 * len(middles) or b'\\"' in array:
        return None
    return array, size


def run_texts(
    raws: Sequence[bytes], tpl: Template, loads: Callable[[bytes], object]
) -> tuple[list[str], int] | None:
    """The texts of a run of events that all match ``tpl``, in order, and the number of bytes
    they hold; None if one does not. ``loads`` is orjson's (passed in: the build has no orjson)."""
    found = run_array(raws, tpl)
    if found is None:
        return None
    array, size = found
    try:
        texts = loads(array)
    except ValueError:  # orjson.JSONDecodeError is one
        return None
    if type(texts) is not list or len(texts) != len(raws):
        return None
    return texts, size


def fold_run(
    items: Sequence[SSEItem], tpl: Template, loads: Callable[[bytes], object], text: TextBuffer
) -> int:
    """Add the texts of a read's events to ``text`` (item by item) when every one matches
    ``tpl``, and return the number of bytes the events hold; -1, with nothing added, if one does
    not. One call for the whole read: compiled, the raws, the match and the fold run natively."""
    found = run_texts(raws_of(items), tpl, loads)
    if found is None:
        return -1
    first = items[0].index
    text.extend(found[0], range(first, first + len(items)))
    return found[1]
