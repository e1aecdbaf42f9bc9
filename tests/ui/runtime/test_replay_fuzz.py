"""Fuzzing up to the screen: mutated captures (bytes flipped, cut, events dropped, repeated
and reordered) replayed into the real panels never raise in a widget or the inspector, never open
a dialog, end in one of the five statuses, and the timeline shows one row per item."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CAPTURES = Path(__file__).resolve().parents[4] / "shared" / "captures"
if not CAPTURES.is_dir():  # CI may lay shared/ elsewhere, as tests/conftest.py allows for
    CAPTURES = Path(os.environ.get("PLAYGROUND_CAPTURES", "../shared/captures")).resolve()
_BLOCK_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")
PANEL_OF = {"chat": "chat", "responses": "responses", "messages": "messages", "images": "responses"}


def _blocks(data: bytes) -> list[bytes]:
    out, last = [], 0
    for m in _BLOCK_END.finditer(data):
        out.append(data[last : m.end()])
        last = m.end()
    if last < len(data):
        out.append(data[last:])
    return out


def _mutate(rng: random.Random, data: bytes) -> bytes:
    blocks = _blocks(data)
    for _ in range(rng.randint(1, 6)):
        if not blocks:
            break
        i = rng.randrange(len(blocks))
        op = rng.choice(["drop", "repeat", "swap", "flip", "cut", "junk"])
        if op == "drop":
            del blocks[i]
        elif op == "repeat":
            blocks.insert(i, blocks[i])
        elif op == "swap":
            j = rng.randrange(len(blocks))
            blocks[i], blocks[j] = blocks[j], blocks[i]
        elif op == "flip" and blocks[i]:
            raw = bytearray(blocks[i])
            raw[rng.randrange(len(raw))] = rng.randrange(256)
            blocks[i] = bytes(raw)
        elif op == "cut":
            blocks[i] = blocks[i][: rng.randint(0, len(blocks[i]))]
            del blocks[i + 1 :]
        elif op == "junk":
            blocks.insert(i, bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))))
    return b"".join(blocks)


def _cases() -> list[tuple[str, Path, int]]:
    files = sorted(p for p in CAPTURES.glob("*/*.sse") if p.parent.name in PANEL_OF)
    rng = random.Random(5)
    return [(PANEL_OF[p.parent.name], p, rng.randrange(1 << 30)) for p in files for _ in range(2)]


@pytest.fixture(autouse=True)
def no_dialogs(monkeypatch: pytest.MonkeyPatch) -> Any:
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []

    def refuse(name: str) -> Callable[..., int]:
        def fake(*_args: object, **_kwargs: object) -> int:
            shown.append(name)
            return 0

        return fake

    for name in ("critical", "warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(refuse(name)))
    yield shown
    assert shown == []


def test_mutated_captures_replayed_into_the_panels(window: Any, qloop: Any) -> None:
    from playground.protocol.capture import read_capture
    from playground.protocol.state import STATUSES

    cases = _cases()
    assert cases, f"no captures under {CAPTURES}"
    problems: list[str] = []
    fed = 0
    for route, path, seed in cases:
        data = _mutate(random.Random(seed), path.read_bytes())
        panel = window.show_panel(route)
        capture = read_capture(data)
        qloop.do(panel.session.start_replay, capture, 0.0)
        status = qloop.run(panel.session.wait(), 20)
        qloop.sleep(0.03)
        where = f"{path.name} seed {seed}"
        if status not in STATUSES:
            problems.append(f"{where}: status {status!r}")
        if "could not show an update" in panel.banner.text:
            problems.append(f"{where}: {panel.banner.text}")
        decoder = panel.session.decoder
        rows = window.inspector.model.rowCount()
        fed += rows > 0
        if decoder is None or rows != len(decoder.items):
            problems.append(f"{where}: {rows} rows for {len(decoder.items) if decoder else '-'}")
        elif [f.message for f in decoder.state.findings if f.code == "decoder_error"]:
            problems.append(f"{where}: decoder_error findings")
    assert problems == []
    assert fed > len(cases) // 2, "the replays fed (almost) nothing: the test tests nothing"


ODD_CAPTURES = [
    b'{"format": "playground-capture/1", "route": 5, "request": 3}\n{"t": "x", "b64": "!!"}\n',
    b'{"format": "playground-capture/1", "route": "messages"}\n'
    b'{"response": {"status": "200", "headers": 7}}\n{"t": 0.1, "b64": "ZGF0YToge30KCg=="}\n',
    b'{"format": "playground-capture/1"}\n[1,2]\nnull\n"x"\n{"t": 1e309, "b64": 5}\n',
    b'{"format": "playground-capture/1", "route": "chat", '
    b'"request": {"headers": [1], "body": {"a": 1}, "url": 7, "method": null}}\n'
    b'{"response": {"status": 200, "headers": [["a"], 5, ["b", "c", "d"]]}}\n'
    b'{"t": 0.0, "b64": "ZGF0YTogW0RPTkVdCgo="}\n{"end": "soon", "status": 9}\n',
    b'{"format": "playground-capture/2", "route": "speech"}\n',
    b"\xff\xfe\x00garbage",
    b"",
]


@pytest.mark.parametrize("n", range(len(ODD_CAPTURES)))
def test_odd_capture_files_open_without_a_crash(
    window: Any, qloop: Any, tmp_path: Path, n: int
) -> None:
    path = tmp_path / f"odd{n}.capture.jsonl"
    path.write_bytes(ODD_CAPTURES[n])
    qloop.do(window.open_capture, str(path))
    panel = window.current_panel()
    if panel.session.is_running:
        qloop.run(panel.session.wait(), 10)
    qloop.sleep(0.05)
    decoder = panel.session.decoder
    if decoder is not None:
        assert window.inspector.model.rowCount() == len(decoder.items)
