"""Markdown split into top-level blocks as it streams: closed blocks are final, one stays open.

Pure text logic (no Qt): the answer view renders each closed block once and lays out again only
the open one, so a frame's work never grows with the answer (``markdown_growth``). The splitter
reads whole lines, as CommonMark's block phase does (spec §"Appendix: a parsing strategy"), and
decides where a top-level block ends from the lines alone; its decisions depend only on the text,
never on how it was cut into deltas (tests/protocol/test_markdown_blocks.py, a Hypothesis
property).

Blocks longer than ``LIMIT`` code points are cut so that no open block grows without end: a
paragraph at its first line end past the limit (or, for one endless line, at its first space
past the limit: the rest is a *continued* paragraph whose text is never read as a block start),
a fenced code block at a line end (the next piece is a fence without its opening line), a list at
its next top-level item. Tables, quotes and indented code are not cut; the view bounds their
cost by time instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["LIMIT", "Block", "BlockKind", "BlockSplitter", "split_blocks"]

BlockKind = Literal["paragraph", "heading", "fence", "code", "list", "quote", "table", "rule"]

# Code points one block may hold before it is cut (see the module docstring). 2,000 is what the
# plain view broke endless paragraphs at: laying that out is well under a millisecond.
LIMIT: Final = 2000
# A line is cut in its middle only after this many characters, so its start (indent, list
# marker, up to 9 digits and a delimiter) has been seen and classified exactly.
_HEAD: Final = 16

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_QUOTE = re.compile(r" {0,3}>")
_ITEM = re.compile(r"( {0,3})([-+*]|[0-9]{1,9}[.)])([ \t]+|$)")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_DELIMITER = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_STRUCTURAL = frozenset(" \t-*_=:|")


@dataclass(frozen=True, slots=True)
class Block:
    """One top-level block: its kind, where it is in the source (code points) and its text.

    ``continued``: a paragraph that goes on from the one before (cut at a space: render its text
    as text), a fence piece without its opening line, or a list's later items. ``info``: a
    fence's language (the info string's first word); ``code``: its content without the fence
    lines; ``group``: where the fence this piece belongs to started (copy takes all pieces).
    """

    kind: BlockKind
    start: int
    end: int
    text: str
    continued: bool = False
    info: str = ""
    group: int = -1
    code: str = ""


def _dedent(line: str, n: int) -> str:
    k = 0
    while k < n and k < len(line) and line[k] == " ":
        k += 1
    return line[k:]


def _indent(line: str) -> int:
    n = 0
    for ch in line:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += 4 - n % 4
        else:
            break
    return n


def _blank(line: str) -> bool:
    return not line.strip()


def _item(line: str) -> tuple[str, int, bool] | None:
    """A list item's type (bullet char or ordered delimiter), content indent and emptiness."""
    if _RULE.match(line):
        return None
    m = _ITEM.match(line)
    if m is None:
        return None
    marker = m.group(2)
    kind = marker if marker in "-+*" else "1" + marker[-1]
    spaces = len(m.group(3).expandtabs(4))
    empty = not line[m.end() :].strip()
    width = len(m.group(1)) + len(marker)
    content = width + (1 if spaces > 4 or empty else spaces)
    return kind, content, empty


def _interrupts(line: str) -> bool:
    """Whether ``line`` starts a block that ends a paragraph (CommonMark §4, §5)."""
    if _indent(line) >= 4:
        return False
    if _FENCE.match(line) and not _backtick_info(line):
        return True
    if _ATX.match(line) or _RULE.match(line) or _QUOTE.match(line):
        return True
    item = _item(line)
    if item is None or item[2]:
        return False  # an empty item cannot interrupt a paragraph (§5.2)
    marker = line.lstrip(" ")
    return item[0] in "-+*" or marker.startswith("1.") or marker.startswith("1)")


def _backtick_info(line: str) -> bool:
    """A backtick fence whose info string holds a backtick is not a fence (§4.5)."""
    m = _FENCE.match(line)
    return m is not None and m.group(1)[0] == "`" and "`" in m.group(2)


def _decides_paragraph(prefix: str, first: bool) -> bool:
    """Whether a line starting with ``prefix`` (at least _HEAD characters) is paragraph text
    whatever follows: no block start (for a block's ``first`` line, no list item of any number
    either), and not a rule, setext underline or table delimiter row."""
    if _indent(prefix) >= 4 or _interrupts(prefix) or (first and _item(prefix) is not None):
        return False
    return any(ch not in _STRUCTURAL for ch in prefix)


def _cells(line: str) -> int:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return len(re.split(r"(?<!\\)\|", body))


def _fence_code(lines: list[str], opening: bool, fence: tuple[str, int, int]) -> str:
    """A fence piece's code: without its opening line (if it has it), its closing line and the
    opening fence's indent (CommonMark §4.5)."""
    char, length, indent = fence
    if opening and lines:
        lines = lines[1:]
    if lines:
        last = lines[-1].strip()
        if _indent(lines[-1]) < 4 and len(last) >= length and last == char * len(last):
            lines = lines[:-1]
    if indent:
        lines = [_dedent(line, indent) for line in lines]
    return "".join(lines).removesuffix("\n")


class BlockSplitter:
    """Feed text deltas; get the blocks they closed. ``open_block`` is the one still growing."""

    def __init__(self) -> None:
        self._pos = 0  # source offset of _partial's first character
        self._partial = ""  # the unterminated last line
        self._cont = False  # _partial continues a paragraph cut at a space
        self._kind: BlockKind | None = None
        self._start = 0  # source offset of the open block
        self._lines: list[str] = []  # its complete lines, each with its "\n"
        self._len = 0  # code points in _lines
        self._content_end = 0  # end of its last non-blank line
        self._fence: tuple[str, int, int] = ("`", 3, 0)  # fence char, length, indent
        self._info = ""
        self._group = -1
        self._first_cont = False  # the open block is ``continued``
        self._item_kind = ""
        self._item_indent = 0
        self._blank_seen = False
        self._closed: list[Block] = []
        self._finished = False

    # -- public --------------------------------------------------------------------------------

    def feed(self, delta: str) -> list[Block]:
        """Take the next piece of text; the blocks it closed, in order."""
        if self._finished:
            raise ValueError("feed after finish")
        self._closed = []
        text = self._partial + delta
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                break
            # A complete line is cut exactly as its unterminated prefix would have been.
            self._partial = text[start:newline]
            self._cut_partial()
            line = self._partial + "\n"
            cont, self._cont = self._cont, False
            self._line(line, self._pos, cont)
            self._pos += len(line)
            start = newline + 1
        self._partial = text[start:]
        self._cut_partial()
        return self._closed

    def finish(self) -> list[Block]:
        """The text has ended: close what is open."""
        if self._finished:
            return []
        self._closed = []
        if self._partial:
            cont, self._cont = self._cont, False
            self._line(self._partial, self._pos, cont)
            self._pos += len(self._partial)
            self._partial = ""
        self._close()
        self._finished = True
        return self._closed

    def open_block(self) -> Block | None:
        """The block still growing, as it reads now (None if nothing is open)."""
        if self._finished:
            return None
        partial = self._partial
        if self._kind is None:
            if not partial.strip():
                return None
            return self._shown(self._guess(partial), self._pos, [partial], self._cont)
        kind = self._kind
        if kind == "paragraph" and len(self._lines) == 1 and not self._first_cont:
            first = self._lines[0]
            if "|" in first and _DELIMITER.match(partial) and _cells(first) == _cells(partial):
                kind = "table"
            elif _SETEXT.match(partial) and partial.strip()[0] == "=":
                kind = "heading"
        lines = [*self._lines, partial] if partial else self._lines
        return self._shown(kind, self._start, lines, self._first_cont)

    def _guess(self, partial: str) -> BlockKind:
        """What an unterminated first line reads as for now (its kind is final at its end)."""
        if self._cont:
            return "paragraph"
        if _indent(partial) >= 4:
            return "code"
        if self._fence_start(partial):
            return "fence"
        if _ATX.match(partial):
            return "heading"
        if _QUOTE.match(partial):
            return "quote"
        if _item(partial) is not None:
            return "list"
        return "paragraph"

    def _fence_start(self, line: str) -> bool:
        """Whether ``line`` opens a fence; if so, note its character, length, indent and info."""
        fence = _FENCE.match(line)
        if fence is None or _backtick_info(line):
            return False
        self._fence = (fence.group(1)[0], len(fence.group(1)), _indent(line))
        words = fence.group(2).strip().split()
        self._info = words[0] if words else ""
        return True

    def _shown(self, kind: BlockKind, start: int, lines: list[str], cont: bool) -> Block:
        text = "".join(lines)
        text = text.rstrip("\n") if kind == "fence" else text.rstrip()
        code = ""
        group = -1
        if kind == "fence":
            opening = not cont
            code = _fence_code(lines if text else [], opening, self._fence)
            group = self._group if self._group >= 0 else start
        return Block(
            kind,
            start,
            start + len(text),
            text,
            cont,
            self._info if kind == "fence" else "",
            group,
            code,
        )

    # -- lines ---------------------------------------------------------------------------------

    def _line(self, line: str, at: int, cont: bool) -> None:
        kind = self._kind
        if cont:
            if not _blank(line):
                self._open("paragraph", line, at)
                self._first_cont = True
                self._paragraph_limit()
            return
        if kind is None:
            self._begin(line, at)
        elif kind == "fence":
            self._in_fence(line, at)
        elif kind == "paragraph":
            self._in_paragraph(line, at)
        elif kind == "table":
            if _blank(line) or _interrupts(line):
                self._close()
                self._begin(line, at)
            else:
                self._add(line, at)
        elif kind == "list":
            self._in_list(line, at)
        elif kind == "quote":
            if _blank(line):
                self._close()
            elif _QUOTE.match(line) or not _interrupts(line):
                self._add(line, at)
            else:
                self._close()
                self._begin(line, at)
        elif kind == "code":
            if _blank(line) or _indent(line) >= 4:
                self._add(line, at)
            else:
                self._close()
                self._begin(line, at)

    def _begin(self, line: str, at: int) -> None:
        if _blank(line):
            return
        self._group = -1
        self._info = ""
        self._blank_seen = False
        if _indent(line) >= 4:
            self._open("code", line, at)
            return
        if self._fence_start(line):
            self._group = at
            self._open("fence", line, at)
            return
        if _ATX.match(line):
            self._open("heading", line, at)
            self._close()
            return
        if _RULE.match(line):
            self._open("rule", line, at)
            self._close()
            return
        if _QUOTE.match(line):
            self._open("quote", line, at)
            return
        item = _item(line)
        if item is not None:
            self._item_kind, self._item_indent = item[0], item[1]
            self._open("list", line, at)
            return
        self._open("paragraph", line, at)
        self._paragraph_limit()

    def _in_fence(self, line: str, at: int) -> None:
        char, length, _ = self._fence
        self._add(line, at)
        body = line.strip()
        if _indent(line) < 4 and len(body) >= length and body == char * len(body):
            self._close()
        elif self._len >= LIMIT:
            # A long fence goes on in a new piece (a fence without its opening line).
            group, info = self._group, self._info
            self._close()
            self._kind = "fence"
            self._start = self._content_end = at + len(line)
            self._first_cont = True
            self._group, self._info = group, info

    def _in_paragraph(self, line: str, at: int) -> None:
        if _blank(line):
            self._close()
            return
        if len(self._lines) == 1 and not self._first_cont:
            first = self._lines[0]
            if "|" in first and _DELIMITER.match(line) and _cells(first) == _cells(line):
                self._kind = "table"
                self._add(line, at)
                return
        if _SETEXT.match(line):
            self._add(line, at)
            self._kind = "heading"
            self._close()
            return
        if _interrupts(line):
            self._close()
            self._begin(line, at)
            return
        self._add(line, at)
        self._paragraph_limit()

    def _in_list(self, line: str, at: int) -> None:
        if _blank(line):
            self._blank_seen = True
            self._add(line, at)
            return
        if _indent(line) >= self._item_indent:
            self._blank_seen = False
            self._add(line, at)
            return
        item = _item(line)
        if item is not None and item[0] == self._item_kind:
            self._blank_seen = False
            if self._len >= LIMIT:
                # A long list goes on in a new block at its next item (bounded layout).
                self._close()
                self._begin(line, at)
                self._first_cont = True
                return
            self._item_indent = item[1]
            self._add(line, at)
            return
        if self._blank_seen or _interrupts(line) or item is not None:
            self._close()
            self._begin(line, at)
            return
        self._add(line, at)  # lazy continuation of the item's paragraph

    # -- open block bookkeeping ----------------------------------------------------------------

    def _open(self, kind: BlockKind, line: str, at: int) -> None:
        self._kind = kind
        self._start = self._content_end = at
        self._first_cont = False
        self._lines = []
        self._len = 0
        self._add(line, at)

    def _add(self, line: str, at: int) -> None:
        self._lines.append(line)
        self._len += len(line)
        if not _blank(line):
            self._content_end = at + len(line.rstrip())

    def _paragraph_limit(self) -> None:
        if self._kind == "paragraph" and self._len >= LIMIT:
            self._close()

    def _close(self) -> None:
        kind = self._kind
        if kind is None:
            return
        start, cont = self._start, self._first_cont
        if kind == "fence":
            text = "".join(self._lines).removesuffix("\n")
            code = _fence_code(self._lines, not cont, self._fence)
            self._closed.append(
                Block(kind, start, start + len(text), text, cont, self._info, self._group, code)
            )
        else:
            text = "".join(self._lines)[: max(0, self._content_end - start)]
            code = "\n".join(_dedent(x, 4) for x in text.split("\n")) if kind == "code" else ""
            if text.strip():
                self._closed.append(Block(kind, start, start + len(text), text, cont, code=code))
        self._kind = None
        self._lines = []
        self._len = 0
        self._first_cont = False
        self._blank_seen = False

    def _cut_partial(self) -> None:
        """Cut an endless line at its first space past the limit (see the module docstring)."""
        while self._kind in (None, "paragraph"):
            partial = self._partial
            used = self._len if self._kind == "paragraph" else 0
            if used + len(partial) <= LIMIT:
                return
            space = partial.find(" ", max(LIMIT - used, _HEAD))
            if space < 0:
                return
            first = self._kind is None
            if not self._cont and not _decides_paragraph(partial[:space], first):
                return
            if first:
                self._open("paragraph", partial[:space], self._pos)
                self._first_cont = self._cont
            else:
                self._add(partial[:space], self._pos)
            self._close()
            self._pos += space + 1
            self._partial = partial[space + 1 :]
            self._cont = True


def split_blocks(text: str) -> list[Block]:
    """All blocks of a whole text (the same as feeding it in any pieces, then ``finish``)."""
    splitter = BlockSplitter()
    return splitter.feed(text) + splitter.finish()
