"""Compare's columns and the thinking view render Markdown as the answer does."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QTextDocument

CODE_PROMPT = "Write a Python function that sums a list"


def _headings(doc: QTextDocument) -> list[tuple[int, str]]:
    out = []
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            out.append((block.blockFormat().headingLevel(), block.text()))
        block = block.next()
    return out


def _code_colours(doc: QTextDocument, starts: str) -> set[str]:
    """Colours of the words on the first code line (never-wrapping block) starting ``starts``."""
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().nonBreakableLines() and block.text().startswith(starts):
            colours = set()
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.text().strip():
                    assert fragment.charFormat().fontFixedPitch()
                    colours.add(fragment.charFormat().foreground().color().name())
                it += 1
            return colours
        block = block.next()
    return set()


def test_a_compare_column_renders_headings_and_highlighted_code(
    window: Any, qloop: Any, sim: Any
) -> None:
    from playground.ui.compare.window import ColumnConfig, CompareWindow

    compare = CompareWindow(
        [ColumnConfig("chat", "simulator"), ColumnConfig("messages", "simulator")],
        default_base_url=sim.base_url,
        sim_headers={"X-Sim-Pace": "fast"},
    )
    compare.resize(1200, 700)
    compare.show()
    compare.prompt.setPlainText(CODE_PROMPT)
    finished: list[bool] = []
    compare.allFinished.connect(lambda: finished.append(True))
    compare.send_all()
    qloop.wait_until(lambda: bool(finished), 30)
    for column in compare.columns:
        view = column.answer
        qloop.wait_until(lambda view=view: not view.pending, 5)
        assert "```" in column.text and "##" in column.text  # the source is Markdown...
        doc = view.document()
        plain = doc.toPlainText()
        assert "```" not in plain and "##" not in plain  # ... and the column shows it rendered
        heading = next(line for line in column.text.splitlines() if line.startswith("#"))
        assert _headings(doc) and _headings(doc)[0][1] == heading.lstrip("# ")
        assert len(_code_colours(doc, "def ")) >= 2  # `def` and the name differ in colour
    compare.close()


def test_the_thinking_view_renders_markdown_dimmed(qapp: Any) -> None:
    from playground.protocol.state import StreamState
    from playground.ui.views.thinking_view import ThinkingView

    view = ThinkingView()
    state = StreamState()
    reasoning = (
        "## Plan\n\nFirst **this**, then:\n\n- one\n- two\n\n"
        "```python\ndef f(x):\n    return x\n```\n"
    )
    state.choice(0).reasoning.append(reasoning, 0)
    view.refresh(state)
    view.finish(state)
    view.text.flush()
    doc = view.text.document()
    assert _headings(doc) == [(2, "Plan")]
    assert "**" not in doc.toPlainText() and "```" not in doc.toPlainText()
    assert doc.begin().next().charFormat().fontItalic() or doc.begin().charFormat().fontItalic()
    assert len(_code_colours(doc, "def ")) >= 2
    lists = [b for b in _blocks(doc) if b.textList() is not None]
    assert [b.text() for b in lists] == ["one", "two"]


def _blocks(doc: QTextDocument) -> list[Any]:
    out = []
    block = doc.begin()
    while block.isValid():
        out.append(block)
        block = block.next()
    return out
