"""Write the hostile corpus: streams and captures built to hurt a reader, under tests/hostile/.

    python scripts/make_hostile_corpus.py [--size BYTES] [--out DIR]

The small files (the default size, 48 KB each) are checked in and read by
tests/protocol/test_hostile_corpus.py; big ones (``--size 200000000``) are for probing by hand and
are never checked in: the tests build theirs at test time. The streams come from
``playground/bench/hostile_inputs.py`` (the hostile benchmark feeds the same ones); the captures
plant code in every value an export writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playground.bench.hostile_inputs import CORPUS
from playground.protocol.capture import encode_line, end_record, header_record

ROOT = Path(__file__).resolve().parents[1]
PLANTED = '{__import__("os").system("touch PLANTED")}`touch PLANTED`$(touch PLANTED)${1}\n\u2028'


def _capture(route: str, url: str, body: dict[str, object]) -> bytes:
    request = {"method": "POST", "url": url, "headers": {"X-Planted": "$(touch PLANTED)"}}
    header = header_record(route, request | {"body": body}, "2026-01-01T00:00:00Z")
    return encode_line(header) + encode_line(end_record(0.0, "complete"))


def captures() -> dict[str, bytes]:
    """Captures whose request values would run code if an export pasted them into code."""
    base = "http://127.0.0.1:9/v1"
    return {
        "export-images.capture": _capture(
            "images",
            base + "/images/generations",
            {"model": "m", "prompt": PLANTED, "output_format": PLANTED, PLANTED: PLANTED},
        ),
        "export-speech.capture": _capture(
            "speech",
            base + "/audio/speech",
            {"model": "m", "input": "hi", "voice": "v", "response_format": PLANTED},
        ),
        "export-transcription.capture": _capture(
            "transcription",
            base + "/audio/transcriptions",
            {"model": "m", "file": f"@{PLANTED} (3 bytes)", "prompt": PLANTED},
        ),
        "export-chat.capture": _capture(
            "chat",
            base + "\n/x\u2028" + "/chat/completions",
            {"model": PLANTED, "messages": [{"role": "user", "content": PLANTED}]},
        ),
    }


def write(out: Path, size: int) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in CORPUS.items():
        path = out / f"{name}.sse"
        path.write_bytes(build(size))
        written.append(path)
    for name, data in captures().items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    (out / "README.md").write_text(
        "# Hostile corpus\n\nWritten by `scripts/make_hostile_corpus.py` (do not edit by hand);"
        " read by `tests/protocol/test_hostile_corpus.py`.\n"
        "Each `.sse` is a stream built to hurt a reader; each `.capture` plants code in the"
        " values an export writes.\n"
        + "".join(f"- `{p.name}`: {len(p.read_bytes()):,} bytes\n" for p in written),
        encoding="utf-8",
    )
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=48_000, help="bytes per stream")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "hostile")
    args = parser.parse_args()
    for path in write(args.out, args.size):
        print(path)


if __name__ == "__main__":
    main()
