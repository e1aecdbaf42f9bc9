"""Plain prose (ui/views/plain_prose.py): plain paragraphs and headings inserted without md4c
look exactly as md4c renders them, and only blocks without markup go that way."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QTextCharFormat, QTextDocument, QTextFormat
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import playground.ui.views.markdown_doc as markdown_doc
from playground.protocol.markdown import Block
from playground.ui.views import plain_prose
from playground.ui.views.live_text import LiveText
from playground.ui.views.markdown_render import BlockRenderer
from playground.ui.views.plain_prose import plain_text


def _block(text: str, kind: str = "paragraph") -> Block:
    return Block(kind, 0, len(text), text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("Hello, world: it works (mostly).", "paragraph", ("Hello, world: it works (mostly).", 0)),
        ("Équipe “née” à 3 h 10 – 50% = ½…", "paragraph", ("Équipe “née” à 3 h 10 – 50% = ½…", 0)),
        ("## Part 2", "heading", ("Part 2", 2)),
        ("###### 6. Deep", "heading", ("6. Deep", 6)),
        ("1. An ordered item", "paragraph", None),  # a digit may start a list
        ("- a list item", "paragraph", None),
        ("Some **bold** text", "paragraph", None),
        ("Some `code`", "paragraph", None),
        ("A [link](x)", "paragraph", None),
        ("Go to http://example.test now", "paragraph", None),
        ("Visit www.example.test", "paragraph", None),
        ("Mail me at a@b.test", "paragraph", None),
        ("snake_case word", "paragraph", None),
        ("Tom & Jerry", "paragraph", None),
        ("a ~strike~", "paragraph", None),
        ("a | b", "paragraph", None),
        ("Two\nlines", "paragraph", None),
        (" Leading space", "paragraph", None),
        ("Trailing space ", "paragraph", None),
        ("## Closed ##", "heading", None),
        ("##  Two spaces in", "heading", None),
        ("Setext\n===", "heading", None),
        ("", "paragraph", None),
    ],
)
def test_plain_text_takes_only_blocks_with_no_markup(
    text: str, kind: str, expected: tuple[str, int] | None
) -> None:
    assert plain_text(_block(text, kind)) == expected


def test_a_continued_paragraph_goes_through_md4c() -> None:
    block = Block("paragraph", 0, 5, "Hello", continued=True)
    assert plain_text(block) is None


def _formats(document: QTextDocument) -> list[object]:
    """Every block's format and each fragment's text and character format: all of md4c's
    rendering that shows. Formats compare with Qt's ``==`` (reading some of their properties
    into Python crashed)."""
    dump: list[object] = []
    block = document.begin()
    while block.isValid():
        pieces = []
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            pieces.append((fragment.text(), fragment.charFormat()))
            it += 1
        # A block's own character format shows only while it is empty; in a block with text
        # md4c leaves it as it was when the block began, which differs at a batch's edges
        # (batched and unbatched md4c rendering differ there the same way).
        own = QTextCharFormat(block.charFormat()) if block.length() == 1 else None
        if own is not None:  # which table it belongs to: an index that moves between documents
            own.clearProperty(QTextFormat.Property.ObjectIndex)
        dump.append((block.blockFormat(), own, pieces))
        block = block.next()
    return dump


def _looks(text: str, *, fast: bool, base: QTextCharFormat | None) -> tuple[object, ...]:
    """The document LiveText renders from ``text`` (all at once), with or without the fast
    path, and where each closed block sits."""
    # The module-level name markdown_doc calls, swapped to turn the fast path off.
    saved = markdown_doc.plain_text  # type: ignore[attr-defined]
    if not fast:
        markdown_doc.plain_text = lambda block: None  # type: ignore[attr-defined]
    view = LiveText(markdown=True)
    try:
        view.resize(600, 400)
        if base is not None:
            view.char_format = base
        view.show_text(text)
        view.flush()
        live = view.live_markdown
        assert live is not None and not live.pending
        where = [(s.block.start, s.block.end, s.doc_start, s.doc_end) for s in live.closed]
        return view.document().toHtml(), _formats(view.document()), where
    finally:
        markdown_doc.plain_text = saved  # type: ignore[attr-defined]
        view.deleteLater()


_PLAIN_CHARS = st.sampled_from(
    list("abcxyzABW0123456789 ")
    + list(",.;:?!'\"()/%+=-")
    + ["é", "ß", "Ж", "你", "‘", "’", "“", "”", "…", "–", "—"]
)
_PLAIN_TEXT = st.text(_PLAIN_CHARS, min_size=1, max_size=40)
_MARKUP = st.sampled_from(
    [
        "Some **bold** and `code` here.",
        "- one\n- two",
        "> quoted words",
        "```py\nprint(1)\n```",
        "A [link](https://x.test) in it.",
        "Setext\n===",
        "| a | b |\n| - | - |\n| 1 | 2 |",
    ]
)
_BLOCK = st.one_of(
    st.builds(lambda t: "W" + t.strip(), _PLAIN_TEXT),  # paragraphs that may be plain
    _PLAIN_TEXT.map(lambda t: t.strip() or "x"),  # ... or may start with anything
    st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 6), _PLAIN_TEXT),  # headings
    _MARKUP,
)


@settings(max_examples=60, deadline=None)
@given(blocks=st.lists(_BLOCK, min_size=1, max_size=12), thinking=st.booleans())
def test_plain_blocks_look_exactly_as_md4c_renders_them(
    qapp: QApplication, blocks: list[str], thinking: bool
) -> None:
    base = None
    if thinking:  # the thinking view's dim italic goes over all prose
        base = QTextCharFormat()
        base.setFontItalic(True)
    text = "\n\n".join(blocks) + "\n"
    assert _looks(text, fast=True, base=base) == _looks(text, fast=False, base=base)


def test_an_answer_of_plain_blocks_needs_md4c_only_to_learn_their_formats(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    batch = BlockRenderer.batch

    def counted(self: BlockRenderer, blocks: list[Block], *, leading: bool) -> object:
        batches.append(len(blocks))
        return batch(self, blocks, leading=leading)

    monkeypatch.setattr(BlockRenderer, "batch", counted)
    text = "Intro **with markup**.\n\n" + "".join(
        f"### Part {k}\n\nPlain words for part {k}, nothing more.\n\n" for k in range(200)
    )
    view = LiveText(markdown=True)
    qtbot.addWidget(view)
    view.show_text(text)
    view.flush()
    live = view.live_markdown
    assert live is not None and len(live.closed) == 401
    # The first batch (the document's first block has no block before it) and one sample of
    # each kind: a paragraph and a third-level heading.
    assert batches[1:] == [2, 2]
    assert view.document().blockCount() == 401
    heading = view.document().findBlockByNumber(400 - 1)
    assert heading.text() == "Part 199" and heading.blockFormat().headingLevel() == 3
    assert view.document().lastBlock().text() == "Plain words for part 199, nothing more."


# The definition: the inline class (plain_prose._INLINE) matched over the whole rest.
_INLINE_ANYWHERE = re.compile(rf"{plain_prose._INLINE}*")


@given(
    st.text(
        alphabet=st.one_of(
            st.sampled_from("_ ,.;:?!'\"()/%+=*`[]<>&|~#\\\n\t\u2018\u201c\u2026\u2014-aZ9é½"),
            st.characters(),
        ),
        max_size=40,
    )
)
def test_a_paragraph_is_plain_exactly_when_every_character_after_its_first_is_inline(
    rest: str,
) -> None:
    # The definition the one-search check stands for: every character after the first matches
    # the inline class (a letter or digit that is not "_", or one of the plain punctuation).
    text = "A" + rest
    by_definition = _INLINE_ANYWHERE.fullmatch(text, 1) is not None and not text[-1].isspace()
    got = plain_text(_block(text))
    assert (got is not None) == (by_definition and "://" not in text and "www." not in text.lower())
