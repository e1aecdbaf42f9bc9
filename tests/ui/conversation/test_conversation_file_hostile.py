"""A --conversation file nested too deep is a usage error in one sentence, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.ui.arguments import UsageError, parse_args


@pytest.mark.parametrize("content", ["[" * 100_000, '{"messages": ' + "[" * 5_000])
def test_a_deeply_nested_conversation_file_is_one_sentence(tmp_path: Path, content: str) -> None:
    path = tmp_path / "conversation.json"
    path.write_text(content)
    with pytest.raises(UsageError) as caught:
        parse_args(["--route", "chat", "--conversation", str(path), "--exit-when-done"])
    assert str(caught.value).startswith(f"--conversation {path}: JSON nested deeper than")
    assert path.exists()  # the user's own file is left where it is
