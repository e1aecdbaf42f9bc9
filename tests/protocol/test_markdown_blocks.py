"""BlockSplitter: Markdown cut into top-level blocks as it streams, whatever the deltas."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.markdown import LIMIT, Block, BlockSplitter, split_blocks

DOC = """## Title

Some **bold** text
over two lines.

- a
- b

  still b
- c

1. one
2. two

```python
def f():

    return 1
```

| a | b |
| - | -: |
| 1 | 2 |

Setext
===
> quote
> more
lazy

    indented
    code

***
tail"""


def _shape(blocks: list[Block]) -> list[tuple[str, str]]:
    return [(b.kind, b.text) for b in blocks]


def test_a_document_splits_into_its_top_level_blocks() -> None:
    blocks = split_blocks(DOC)
    assert _shape(blocks) == [
        ("heading", "## Title"),
        ("paragraph", "Some **bold** text\nover two lines."),
        ("list", "- a\n- b\n\n  still b\n- c"),
        ("list", "1. one\n2. two"),
        ("fence", "```python\ndef f():\n\n    return 1\n```"),
        ("table", "| a | b |\n| - | -: |\n| 1 | 2 |"),
        ("heading", "Setext\n==="),
        ("quote", "> quote\n> more\nlazy"),
        ("code", "    indented\n    code"),
        ("rule", "***"),
        ("paragraph", "tail"),
    ]
    for block in blocks:
        assert DOC[block.start : block.end] == block.text
    fence = blocks[4]
    assert (fence.info, fence.code, fence.group) == ("python", "def f():\n\n    return 1", 85)
    assert blocks[8].code == "indented\ncode"


def test_blocks_close_as_their_lines_arrive_and_the_open_one_is_shown() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("# He") == []
    open_block = splitter.open_block()
    assert open_block is not None and (open_block.kind, open_block.text) == ("heading", "# He")
    assert _shape(splitter.feed("ad\nFirst para")) == [("heading", "# Head")]
    assert splitter.open_block() == Block("paragraph", 7, 17, "First para")
    assert splitter.feed("graph\n") == []  # a paragraph ends at a blank line, not a line end
    assert _shape(splitter.feed("\n```py\nx = 1\n")) == [("paragraph", "First paragraph")]
    shown = splitter.open_block()
    assert shown is not None and (shown.kind, shown.info, shown.code) == ("fence", "py", "x = 1")
    assert _shape(splitter.feed("```\n")) == [("fence", "```py\nx = 1\n```")]
    assert splitter.open_block() is None
    assert splitter.finish() == []


def test_an_unclosed_fence_and_a_table_being_written() -> None:
    splitter = BlockSplitter()
    splitter.feed("| a | b |\n| --- | --- |\n| 1 |")
    shown = splitter.open_block()
    assert shown is not None and shown.kind == "table"
    splitter.feed(" 2 |\n\n~~~\nunclosed")
    assert _shape(splitter.finish()) == [("fence", "~~~\nunclosed")]


def test_an_endless_line_is_cut_at_a_space_past_the_limit() -> None:
    words = "word " * (LIMIT // 2)  # one line, 2.5 limits long
    blocks = split_blocks(words.strip())
    assert [b.kind for b in blocks] == ["paragraph"] * 3
    assert [b.continued for b in blocks] == [False, True, True]
    assert all(LIMIT <= len(b.text) <= LIMIT + 5 for b in blocks[:2])
    # The cut space is the only character that is in no block.
    assert " ".join(b.text for b in blocks) == words.strip()
    # A continued paragraph starting like a list item is still text.
    text = "x" * 20 + " " * (LIMIT - 10) + "- not a list item"
    assert [b.kind for b in split_blocks(text)] == ["paragraph", "paragraph"]


def test_long_fences_and_lists_go_on_in_pieces() -> None:
    code = "".join(f"line {n} = {n}\n" for n in range(400))
    blocks = split_blocks(f"```js\n{code}```\n")
    assert len(blocks) > 2 and {b.kind for b in blocks} == {"fence"}
    assert [b.continued for b in blocks] == [False] + [True] * (len(blocks) - 1)
    assert {(b.info, b.group) for b in blocks} == {("js", 0)}
    assert "\n".join(b.code for b in blocks) + "\n" == code
    items = "".join(f"- item {n} with some words\n" for n in range(300))
    pieces = split_blocks(items)
    assert len(pieces) > 2 and {b.kind for b in pieces} == {"list"}
    assert "\n".join(b.text for b in pieces) + "\n" == items


_ATOMS = [
    "# Heading\n",
    "Plain words here",
    " and more",
    "\n",
    "\n\n",
    "- item\n",
    "  nested\n",
    "1. first\n",
    "2) second\n",
    "```python\n",
    "```\n",
    "~~~\n",
    "    code\n",
    "> quoted\n",
    "| a | b |\n",
    "| --- | :-: |\n",
    "***\n",
    "===\n",
    "---\n",
    "**bold** `code` ~~gone~~ https://example.org",
    "x" * 30 + " " + "y" * 30,
    " ",
    "\t",
    "- [ ] task\n",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_ATOMS), max_size=40),
    st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    st.sampled_from([LIMIT, 40, 24]),
)
def test_any_split_into_deltas_gives_the_blocks_of_the_whole(
    atoms: list[str], cuts: list[int], limit: int
) -> None:
    import playground.protocol.markdown as markdown

    text = "".join(atoms) * (1 if limit == LIMIT else 3)
    saved = markdown.LIMIT
    setattr(markdown, "LIMIT", limit)  # noqa: B010 - a Final, changed for the test: a small limit exercises the cuts on small texts
    try:
        whole = split_blocks(text)
        splitter = BlockSplitter()
        got: list[Block] = []
        last = 0
        for cut in sorted({min(c, len(text)) for c in cuts}):
            got += splitter.feed(text[last:cut])
            shown = splitter.open_block()
            if shown is not None:
                assert text[shown.start : shown.end] == shown.text
            last = cut
        got += splitter.feed(text[last:])
        got += splitter.finish()
    finally:
        setattr(markdown, "LIMIT", saved)  # noqa: B010
    assert got == whole
    for block in whole:
        assert text[block.start : block.end] == block.text
    starts = [b.start for b in whole]
    assert starts == sorted(starts)
