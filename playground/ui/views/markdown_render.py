"""BlockRenderer: one closed (or open) Markdown block turned into QTextDocument content.

Which parser, by measurement (PySide6 6.11.3 offscreen, 800x600, median of 30 runs, a block
of about 1 KB made into a fragment for the end of a 50-paragraph document):

    block          md4c (QTextDocument.setMarkdown)   markdown-it-py 4.3 -> HTML -> Qt
    paragraph      0.53 ms to build the fragment      1.95 ms
    20-row table   0.61 ms                            2.99 ms
    20-item list   0.45 ms                            2.18 ms

Qt's md4c (the CommonMark reference parser in C, GitHub dialect: tables, task lists,
strikethrough, autolinks) is 3.5-5x faster and needs no new dependency, so prose blocks go
through it, one block at a time. Its two faults are mended here: a table's header cells ignore
the column alignment (the misaligned header row), and links and inline code get fixed colours
that are unreadable on the dark theme. With the whole live path in place the benchmark reads
``markdown_frame_ms`` 6.7 and ``markdown_growth`` 1.56 (``playground bench --only markdown``).
Fenced code never reaches md4c: Pygments highlights it
by language, under a label line with a Copy link (``copy:<group>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QTextTable,
)

from playground.protocol.markdown import Block

from .gap_marks import Gap, apply_marks, with_sentinels

__all__ = ["COPY_SCHEME", "BlockRenderer"]

COPY_SCHEME = "copy:"
# GitHub dialect (tables, task lists, strikethrough, autolinks) without raw HTML: the text comes
# from a server, and Qt's rich text would otherwise load what an <img> names.
_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
_MARKUP_START = set("#>-+*=_~`|")


class _Palette:
    def __init__(self, dark: bool) -> None:
        self.dark = dark
        if dark:
            self.code_bg = QColor(43, 46, 52)
            self.head_bg = QColor(52, 56, 63)
            self.inline_bg = QColor(55, 59, 66)
            self.link = QColor(110, 170, 255)
            self.muted = QColor(150, 155, 162)
            self.border = QColor(80, 85, 92)
            self.header_cell = QColor(48, 51, 57)
            self.style = "monokai"
        else:
            self.code_bg = QColor(245, 246, 248)
            self.head_bg = QColor(232, 234, 238)
            self.inline_bg = QColor(236, 238, 241)
            self.link = QColor(31, 95, 191)
            self.muted = QColor(100, 104, 110)
            self.border = QColor(200, 204, 210)
            self.header_cell = QColor(240, 241, 244)
            self.style = "default"


@lru_cache(maxsize=4)
def _token_formats(style_name: str) -> dict[Any, QTextCharFormat]:
    from pygments.styles import get_style_by_name

    style = get_style_by_name(style_name)
    formats: dict[Any, QTextCharFormat] = {}
    for token, spec in style:
        fmt = QTextCharFormat()
        if spec["color"]:
            fmt.setForeground(QColor("#" + spec["color"]))
        if spec["bold"]:
            fmt.setFontWeight(QFont.Weight.Bold)
        if spec["italic"]:
            fmt.setFontItalic(True)
        formats[token] = fmt
    return formats


@lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False) if language else None
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


class BlockRenderer:
    """Inserts blocks at the end of a document; ``base`` (thinking's dim italic) goes over all
    prose."""

    def __init__(self, *, dark: bool, base: QTextCharFormat | None = None) -> None:
        self.colors = _Palette(dark)
        self.base = base
        self.mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

    def insert(
        self, cursor: QTextCursor, block: Block, first: bool, gaps: Sequence[Gap] = ()
    ) -> None:
        """Append ``block`` at ``cursor`` (the end of the document), in a block of its own."""
        cursor.insertFragment(self.fragment(block, leading=not first, gaps=gaps))

    def fragment(
        self, block: Block, *, leading: bool, gaps: Sequence[Gap] = ()
    ) -> QTextDocumentFragment:
        """``block`` as a fragment, built in a document of its own (no layout runs while it is
        built: the view lays it out once, when it is inserted). ``leading``: start with an
        empty block, which merges into the end of what is there, so the block stands alone.
        ``gaps``: where in it text was lost (gap_marks), each shown as a mark at its place."""
        if gaps:
            block = with_sentinels(block, [gap.offset for gap in gaps])
        if block.kind in ("fence", "code"):
            out = QTextDocument()
            self._code(QTextCursor(out), block, not leading)
        else:
            out = self._prose(block, leading)
        if self.base is not None and block.kind not in ("fence", "code"):
            # Code keeps its highlighting (in the thinking too): only prose takes the base.
            whole = QTextCursor(out)
            whole.select(QTextCursor.SelectionType.Document)
            whole.mergeCharFormat(self.base)
        if gaps:
            apply_marks(out, list(gaps), dark=self.colors.dark)
        return QTextDocumentFragment(out)

    def batch(
        self, blocks: Sequence[Block], *, leading: bool
    ) -> tuple[QTextDocumentFragment, list[int]] | None:
        """Paragraphs and headings (never continued) rendered as one md4c document: the
        fragment and where each block ends in it; None if md4c did not make one QTextBlock per
        block (then each is rendered alone). Rendered alone or together they look the same:
        md4c reads top-level blocks as the splitter cut them, and ``_mend`` works per block."""
        joined = Block(
            "paragraph", blocks[0].start, blocks[-1].end, "\n\n".join(b.text for b in blocks)
        )
        out = self._prose(joined, leading)
        skip = out.blockCount() - len(blocks)
        if skip not in (0, 1) or (skip and not leading):
            return None
        if self.base is not None:
            whole = QTextCursor(out)
            whole.select(QTextCursor.SelectionType.Document)
            whole.mergeCharFormat(self.base)
        ends: list[int] = []
        item = out.begin()
        for _ in range(skip):
            item = item.next()
        while item.isValid():
            ends.append(item.position() + item.length() - 1)
            item = item.next()
        return QTextDocumentFragment(out), ends

    # -- prose through md4c --------------------------------------------------------------------

    def _prose(self, block: Block, leading: bool) -> QTextDocument:
        text = block.text
        if block.continued and block.kind == "paragraph":
            text = _as_text(text)
        doc = QTextDocument()
        doc.setMarkdown(text, _FEATURES)
        self._mend(doc, block)
        first = doc.begin()
        if leading and (first.text() or first.textList() is not None):
            # An empty first block, so the block's own first block (a heading with its
            # margins, a list item in its list) starts a block of its own when inserted.
            block_format, char_format = first.blockFormat(), first.charFormat()
            cursor = QTextCursor(doc)
            cursor.insertBlock()
            cursor.setBlockFormat(block_format)  # the text's block: its own format back
            cursor.setBlockCharFormat(char_format)
            head = QTextCursor(doc.begin())
            head.setBlockFormat(QTextBlockFormat())
            head.setBlockCharFormat(QTextCharFormat())
        return doc

    def _mend(self, doc: QTextDocument, block: Block) -> None:
        colors = self.colors
        item = doc.begin()
        while item.isValid():
            it = item.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                change: QTextCharFormat | None = None
                if fmt.isAnchor():
                    change = QTextCharFormat()
                    change.setForeground(colors.link)
                    change.setFontUnderline(True)
                elif fmt.fontFixedPitch():
                    change = QTextCharFormat()
                    change.setBackground(colors.inline_bg)
                    change.setFontFamilies(self.mono.families())
                if change is not None:
                    span = QTextCursor(doc)
                    span.setPosition(frag.position())
                    span.setPosition(
                        frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor
                    )
                    span.mergeCharFormat(change)
                it += 1
            fmt_block = item.blockFormat()
            if fmt_block.headingLevel():
                fmt_block.setTopMargin(10)
                fmt_block.setBottomMargin(4)
                QTextCursor(item).setBlockFormat(fmt_block)
            elif (
                item.textList() is None
                and not fmt_block.bottomMargin()
                and not fmt_block.hasProperty(
                    QTextFormat.Property.BlockTrailingHorizontalRulerWidth
                )
            ):
                fmt_block.setBottomMargin(6)
                QTextCursor(item).setBlockFormat(fmt_block)
            item = item.next()
        if block.kind == "list" and not block.continued:
            # Room above and below a list, as between paragraphs (md4c's tight lists have none).
            for item, side in ((doc.begin(), "top"), (doc.lastBlock(), "bottom")):
                fmt_list = item.blockFormat()
                if side == "top":
                    fmt_list.setTopMargin(max(fmt_list.topMargin(), 4))
                else:
                    fmt_list.setBottomMargin(max(fmt_list.bottomMargin(), 6))
                QTextCursor(item).setBlockFormat(fmt_list)
        if block.kind == "quote":
            # md4c marks a quote's level but Qt draws no bar: indent it and mute its colour.
            whole = QTextCursor(doc)
            whole.select(QTextCursor.SelectionType.Document)
            quote = QTextBlockFormat()
            quote.setLeftMargin(16)
            whole.mergeBlockFormat(quote)
            muted = QTextCharFormat()
            muted.setForeground(colors.muted)
            whole.mergeCharFormat(muted)
        if block.kind == "table":
            for frame in doc.rootFrame().childFrames():
                if isinstance(frame, QTextTable):
                    self._table(frame)

    def _table(self, table: QTextTable) -> None:
        fmt = table.format()
        fmt.setBorderBrush(QBrush(self.colors.border))
        fmt.setBorder(1)
        fmt.setCellPadding(5)
        fmt.setCellSpacing(0)
        fmt.setBorderCollapse(True)
        fmt.setTopMargin(4)
        fmt.setBottomMargin(6)
        table.setFormat(fmt)
        if table.rows() < 1:
            return
        for column in range(table.columns()):
            head = table.cellAt(0, column)
            cell_format = head.format()
            cell_format.setBackground(self.colors.header_cell)
            head.setFormat(cell_format)
            # md4c aligns body cells by the delimiter row but not the header row: copy it up.
            if table.rows() > 1:
                align = table.cellAt(1, column).firstCursorPosition().blockFormat().alignment()
                cursor = head.firstCursorPosition()
                block_format = cursor.blockFormat()
                block_format.setAlignment(align)
                cursor.setBlockFormat(block_format)

    # -- code through Pygments -----------------------------------------------------------------

    def _code(self, cursor: QTextCursor, block: Block, first: bool) -> None:
        colors = self.colors
        line_format = QTextBlockFormat()
        line_format.setBackground(colors.code_bg)
        line_format.setNonBreakableLines(True)  # long lines scroll sideways, never wrap
        line_format.setLeftMargin(6)
        line_format.setRightMargin(6)
        plain = QTextCharFormat()
        plain.setFontFamilies(self.mono.families())
        plain.setFontFixedPitch(True)
        if block.kind == "fence" and not block.continued:
            self._new_block(cursor, first)
            head = QTextBlockFormat(line_format)
            head.setBackground(colors.head_bg)
            head.setTopMargin(6)
            cursor.setBlockFormat(head)
            label = QTextCharFormat()
            label.setForeground(colors.muted)
            cursor.insertText(f"{block.info or 'code'}    ", label)
            link = QTextCharFormat()
            link.setAnchor(True)
            link.setAnchorHref(f"{COPY_SCHEME}{block.group}")
            link.setForeground(colors.link)
            link.setToolTip("Copy the code")
            cursor.insertText("Copy", link)
            cursor.insertBlock(line_format, plain)
        else:
            self._new_block(cursor, first)
            cursor.setBlockFormat(line_format)
        formats = _token_formats(colors.style)
        lexer = _lexer(block.info) if block.kind == "fence" else None
        code = block.code
        pieces = lexer.get_tokens(code) if lexer is not None else [(None, code)]
        for token, value in pieces:
            fmt = QTextCharFormat(plain)
            style = formats.get(token)
            while style is None and token is not None:
                token = token.parent
                style = formats.get(token)
            if style is not None:
                fmt.merge(style)
            lines = value.split("\n")
            for n, line in enumerate(lines):
                if n:
                    cursor.insertBlock(line_format, plain)
                if line:
                    cursor.insertText(line, fmt)
        end = QTextBlockFormat(cursor.blockFormat())
        end.setBottomMargin(6)
        cursor.setBlockFormat(end)

    # -- helpers -------------------------------------------------------------------------------

    @staticmethod
    def _new_block(cursor: QTextCursor, first: bool) -> None:
        if not first:
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())


def _as_text(text: str) -> str:
    """A paragraph's continuation (cut at a space) must not read as a block start."""
    head = text.lstrip(" ")
    if head[:1] in _MARKUP_START:
        return "\\" + head
    digits = len(head) - len(head.lstrip("0123456789"))
    if digits and head[digits : digits + 1] in (".", ")"):
        return head[:digits] + "\\" + head[digits:]
    return head
