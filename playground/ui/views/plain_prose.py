"""PlainProse: paragraphs and headings with no Markdown in them, inserted in md4c's own formats.

Most blocks of a chat answer are sentences with no markup at all. md4c reads such a block as its
text, shown in one block format and one character format (a heading's per level), so those
formats are learnt once per renderer from md4c itself (a sample of each kind rendered the usual
way, through ``BlockRenderer.batch``) and the text goes straight into the document: no Markdown
document, no mending pass, no fragment copy. On the simulator's 480,000-character answer
(headings and plain paragraphs, fed as ten render steps a second would; 2-core AMD EPYC) the
closed blocks' rendering before layout fell from 0.086 to 0.051 s of CPU and the Markdown view's
whole work from 0.24 to 0.20 s, against 0.16-0.21 s for the same text as plain text: md4c, the
mending pass and the fragment had cost more than the layout. Whatever might be markup (a
character outside the plain set, a URL, a line break, a space at either end) still goes through
md4c; a property test checks that both ways give the same document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument

from playground.protocol.markdown import Block, BlockKind

from .markdown_render import BlockRenderer

__all__ = ["PlainProse", "plain_text"]

# Characters md4c (GitHub dialect, no HTML) reads as themselves wherever they stand after the
# line's first: letters and digits, spaces, and punctuation that opens no emphasis, code span,
# link, image, entity, escape, table cell, strikethrough or email autolink. A URL's "://" and
# "www." are autolinks in this dialect and are checked apart.
_PUNCTUATION = r" ,.;:?!'\"()/%+=\u2018\u2019\u201c\u201d\u2026\u2013\u2014-"
_INLINE = rf"(?:[^\W_]|[{_PUNCTUATION}])"
# A paragraph's first character: a letter or an opening quote or bracket. A digit could start
# an ordered list ("1. "), and "-", "+", "*", "#", ">", "=" a list, heading, quote or rule.
_PARAGRAPH_START = "'\"(\u2018\u201c"
# Any character that is not _INLINE: one search for it is about 3 times faster than matching
# _INLINE over the whole paragraph (an alternation per character), the same answer either way.
_NOT_INLINE = re.compile(rf"[^\w{_PUNCTUATION}]|_")
_HEADING = re.compile(rf"(#{{1,6}}) ((?=\S){_INLINE}*(?<=\S))")


def plain_text(block: Block) -> tuple[str, int] | None:
    """What md4c shows of ``block`` and its heading level (0: a paragraph), if the block holds
    no markup at all; else None. Only whole, uncut paragraphs and headings qualify."""
    text = block.text
    if block.continued or "://" in text or "www." in text.lower():  # autolinks in this dialect
        return None
    if block.kind == "paragraph":
        return (text, 0) if _is_paragraph(text) else None
    if block.kind == "heading":
        found = _HEADING.fullmatch(text)
        return (found.group(2), len(found.group(1))) if found is not None else None
    return None


def _is_paragraph(text: str) -> bool:
    """One line of plain text with no space at either end (md4c would trim it)."""
    if not text or not (text[0].isalpha() or text[0] in _PARAGRAPH_START):
        return False
    return _NOT_INLINE.search(text, 1) is None and not text[-1].isspace()


@dataclass(frozen=True, slots=True)
class _Formats:
    """How md4c shows one kind of plain block: its block format, the character format of its
    text, and the block's own character format when it is not the first of its batch (the first
    keeps the document's default, as md4c leaves its first block)."""

    block: QTextBlockFormat
    text: QTextCharFormat
    later: QTextCharFormat


class PlainProse:
    """Inserts runs of plain blocks at the end of a document as md4c would have shown them."""

    def __init__(self, renderer: BlockRenderer) -> None:
        self.renderer = renderer
        self._formats: dict[int, _Formats] = {}  # heading level (0: paragraph) -> formats
        base = renderer.base
        self._first = QTextCharFormat(base) if base is not None else QTextCharFormat()

    def insert(self, cursor: QTextCursor, run: Sequence[tuple[str, int]]) -> list[int]:
        """Append each ``(text, level)`` of ``run`` as a block of its own after what the
        document holds (never its first block); returns where each block ends."""
        ends: list[int] = []
        first = True
        for text, level in run:
            formats = self._formats.get(level) or self._learn(level)
            cursor.insertBlock(formats.block, self._first if first else formats.later)
            cursor.insertText(text, formats.text)
            ends.append(cursor.position())
            first = False
        return ends

    def _learn(self, level: int) -> _Formats:
        """The formats of a plain block at heading ``level``, read off md4c's rendering of two
        such blocks after existing text (the second one shows what a later block gets)."""
        sample = "Sample" if level == 0 else "#" * level + " Sample"
        kind: BlockKind = "paragraph" if level == 0 else "heading"
        blocks = [Block(kind, 0, len(sample), sample), Block(kind, 0, len(sample), sample)]
        got = self.renderer.batch(blocks, leading=True)
        if got is None:  # md4c made other blocks of the sample than the splitter said
            raise RuntimeError(f"md4c did not render a plain {kind} as one block")
        document = QTextDocument()
        cursor = QTextCursor(document)
        cursor.insertText("before")
        cursor.insertFragment(got[0])
        later = document.lastBlock()
        formats = _Formats(
            later.blockFormat(), later.begin().fragment().charFormat(), later.charFormat()
        )
        self._formats[level] = formats
        return formats
