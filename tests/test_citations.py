"""The repository is self-contained: every file its code and docs cite is a file it holds.

A citation is a Markdown document (``docs/protocol.md``, ``README.md``), a module path
(``ui/runtime/session.py``, ``protocol/sse.py``) or a test's path (``tests/test_project.py``)
named in a module of playground/, in docs/ or in the README. Addresses (``https://…/x.md``) are
left out: they are outside by design.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = "ui|protocol|transport|runs|sim|proxy|cli|bench"
MODULE = re.compile(rf"(?<![\w/.-])(?:playground/)?((?:{PACKAGES})/[\w/]*\w\.py)\b")
TEST = re.compile(r"(?<![\w/.-])(tests/[\w/]*\w\.py)\b")
DOCUMENT = re.compile(r"(?<![\w/.:-])((?:docs/)?[\w.-][\w./-]*\.md)\b")


def _missing(path: Path, text: str) -> list[str]:
    missing = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in MODULE.finditer(line):
            if not (ROOT / "playground" / match.group(1)).is_file():
                missing.append(f"{path.name}:{number}: {match.group(1)}")
        for match in TEST.finditer(line):
            if not (ROOT / match.group(1)).is_file():
                missing.append(f"{path.name}:{number}: {match.group(1)}")
        for match in DOCUMENT.finditer(line):
            name = match.group(1)
            places = (ROOT / name, ROOT / "docs" / name, path.parent / name)
            if not any(place.is_file() for place in places):
                missing.append(f"{path.name}:{number}: {name}")
    return missing


def test_a_citation_of_a_file_outside_the_repository_is_found() -> None:
    text = "One rule (DESIGN.md); see PROTOCOL.md §0, ui/session.py, tests/ui/test_frames.py.\n"
    assert _missing(ROOT / "playground" / "x.py", text) == [
        "x.py:1: ui/session.py",
        "x.py:1: tests/ui/test_frames.py",
        "x.py:1: DESIGN.md",
        "x.py:1: PROTOCOL.md",
    ]
    assert _missing(ROOT / "docs" / "x.md", "docs/protocol.md, https://a.b/c/d.md\n") == []


def test_every_citation_in_the_code_and_the_docs_is_a_file_of_the_repository() -> None:
    cited = [*ROOT.glob("playground/**/*.py"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]
    assert len(cited) > 100
    missing = [m for path in cited for m in _missing(path, path.read_text(encoding="utf-8"))]
    assert missing == []
