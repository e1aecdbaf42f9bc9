"""Marks in rendered Markdown where an unreadable event's text is missing (bad JSON).

docs/protocol.md §0: lost text is never silent. The mark goes *into* the block being rendered: a
sentinel character is put into the block's source at the gap (never inside a line's block
markup, where it would turn a heading or a table row into text), the block is rendered as usual,
and each sentinel found in the result becomes a small ⚠ with the finding as its tooltip and a
``lost:<item>`` link (a click selects the event). The splitter never sees the sentinel, so the
blocks are cut exactly as without it; a closed block is rendered once, mark and all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument

if TYPE_CHECKING:
    from playground.protocol.markdown import Block

__all__ = [
    "GLYPH",
    "LOST_SCHEME",
    "SENTINEL",
    "Gap",
    "apply_marks",
    "mark_format",
    "with_sentinels",
]

SENTINEL = "\ue000"  # a private-use character: md4c and Pygments pass it through as text
GLYPH = "\u26a0"
LOST_SCHEME = "lost:"
# A line's block markup: indent, heading hashes, quote bars, list markers, a task box, a table
# row's first bar. A gap there is moved past it, so the line keeps its meaning.
_PREFIX = re.compile(
    r"[ \t]*(?:(?:#{1,6}|>|[-+*]|[0-9]{1,9}[.)])(?:[ \t]+|$))*(?:\[[ xX]\][ \t]+)?(?:\|[ \t]*)?"
)
# Lines that are markup only (a table's delimiter row, a setext underline, a rule, a fence, a
# blank line): a gap there goes to the end of the line before.
_MARKUP_LINE = re.compile(r"[ \t]*(?:[-=*_:|` \t~]*)$")


@dataclass(frozen=True, slots=True)
class Gap:
    """Where text was lost: the source offset where the next readable piece begins, the event
    that could not be read, and what the finding said."""

    offset: int
    item: int
    note: str


def with_sentinels(block: Block, offsets: list[int]) -> Block:
    """``block`` with a SENTINEL at each source offset (absolute, sorted), placed as described
    in the module docstring; a fence or indented code block gets them in its code."""
    if not offsets:
        return block
    if block.kind in ("fence", "code"):
        code = block.code
        for at in sorted((_code_offset(block, o) for o in offsets), reverse=True):
            code = code[:at] + SENTINEL + code[at:]
        return replace(block, code=code)
    text = block.text
    for at in sorted((_text_offset(block, o) for o in offsets), reverse=True):
        text = text[:at] + SENTINEL + text[at:]
    return replace(block, text=text)


def _text_offset(block: Block, offset: int) -> int:
    text = block.text
    r = max(0, min(len(text.rstrip()), offset - block.start))
    line_start = text.rfind("\n", 0, r) + 1
    line_end = text.find("\n", r)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    if line_start and _MARKUP_LINE.match(line):
        # The end of the line before; inside its last cell if it is a table row (a mark after
        # the row's last bar would be one cell more than the delimiter row has).
        before = text[: line_start - 1].rstrip(" \t")
        return len(before) - 1 if before.endswith("|") else line_start - 1
    if block.continued and line_start == 0:
        return r  # a continued paragraph's start is text, not markup
    prefix = _PREFIX.match(line)
    skip = prefix.end() if prefix is not None else 0
    return max(r, line_start + min(skip, len(line)))


def _code_offset(block: Block, offset: int) -> int:
    text, code = block.text, block.code
    r = max(0, min(len(text), offset - block.start))
    row = text.count("\n", 0, r)
    column = r - (text.rfind("\n", 0, r) + 1)
    if block.kind == "fence" and not block.continued:
        row -= 1  # the opening fence line is not code
    lines = code.split("\n")
    if row < 0:
        return 0
    if row >= len(lines):
        return len(code)
    source_line = text.split("\n")[
        row + (1 if block.kind == "fence" and not block.continued else 0)
    ]
    column = max(0, min(len(lines[row]), column - (len(source_line) - len(lines[row]))))
    return sum(len(line) + 1 for line in lines[:row]) + column


def mark_format(gap: Gap, *, dark: bool) -> QTextCharFormat:
    """The mark's look: amber on a tinted ground, the finding as its tooltip, a link to the
    event (so the dump's HTML shows it as ``<a href="lost:N">``)."""
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(240, 180, 60) if dark else QColor(160, 100, 0))
    fmt.setBackground(QColor(230, 160, 0, 70))
    fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(False)
    fmt.setAnchor(True)
    fmt.setAnchorHref(f"{LOST_SCHEME}{gap.item}")
    fmt.setToolTip(f"An event here could not be read: {gap.note}")
    return fmt


def apply_marks(doc: QTextDocument, gaps: list[Gap], *, dark: bool) -> None:
    """Turn the sentinels in ``doc`` (in order) into marks for ``gaps`` (in offset order)."""
    cursor = QTextCursor(doc)
    for gap in gaps:
        cursor = doc.find(SENTINEL, cursor)
        if cursor.isNull():
            return  # a sentinel md4c dropped (inside a link's address): the note above says it
        cursor.insertText(GLYPH, mark_format(gap, dark=dark))
