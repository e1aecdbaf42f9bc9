"""No key reaches a history capture however the reads cut it: the window's ScrubbingSink and the
journal itself carry each read's tail, and headers are redacted by the rule."""

from __future__ import annotations

from pathlib import Path

from playground.protocol.capture import read_capture
from playground.runs.history import RunHistory
from playground.runs.journal import CaptureJournal
from playground.transport.pipeline import ScrubbingSink

KEY = "sk-split-0123456789abcdef"
STREAM = b'data: {"echo": "' + KEY.encode() + b'"}\n\ndata: [DONE]\n\n'
SCRUBBED = STREAM.replace(KEY.encode(), b"[redacted]")


def _run(sink: ScrubbingSink | CaptureJournal, reads: list[bytes]) -> None:
    sink.on_request(
        "POST",
        f"http://127.0.0.1:1/v1/chat/completions?api_key={KEY}",
        {"Authorization": f"Bearer {KEY}", "X-Auth-Token": KEY, "X-Echo": KEY},
        b'{"model": "m"}',
    )
    sink.on_response(200, [("Set-Cookie", "s=1"), ("X-Echoed", f"k={KEY}")], 0.01)
    for i, data in enumerate(reads):
        sink.on_chunk(0.02 + i * 0.001, data)
    sink.on_end(0.5)


def test_the_window_sink_catches_a_key_split_at_every_offset(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    for cut in range(len(STREAM) + 1):
        recorder = history.start_run("chat")
        _run(ScrubbingSink(recorder, (KEY, f"Bearer {KEY}")), [STREAM[:cut], STREAM[cut:]])
        path = history.run_file(recorder.run_id)
        assert KEY.encode() not in path.read_bytes(), cut
        assert read_capture(path, strict=True).body == SCRUBBED, cut


def test_the_journal_alone_catches_a_key_split_across_many_reads(tmp_path: Path) -> None:
    for size in (1, 2, 3, 7, len(KEY) - 1):
        path = tmp_path / f"{size}.capture.jsonl"
        reads = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
        _run(CaptureJournal(path, "chat", secrets=(KEY,)), reads)
        data = path.read_bytes()
        assert KEY.encode() not in data, size
        capture = read_capture(path, strict=True)
        assert capture.body == SCRUBBED
        assert capture.request is not None
        assert capture.request["headers"]["X-Auth-Token"] == "[redacted]"
        assert capture.request["url"].endswith("?api_key=[redacted]")
        assert dict(capture.header_pairs)["Set-Cookie"] == "[redacted]"


def test_a_bundle_of_an_unscrubbed_capture_scrubs_its_chunks_too(tmp_path: Path) -> None:
    """A capture from elsewhere (no secrets known when it was written): the bundle scrubs the
    key out of the base64 chunks, a key cut across two chunks included."""
    import zipfile

    from playground.runs.bundle import make_bundle

    for cut in (1, len(KEY) // 2, len(KEY) - 1):
        path = tmp_path / f"{cut}.capture.jsonl"
        at = STREAM.index(KEY.encode()) + cut
        _run(CaptureJournal(path, "chat"), [STREAM[:at], STREAM[at:]])
        assert KEY.encode() in read_capture(path, strict=True).body  # written without secrets
        out = make_bundle(path, tmp_path / f"{cut}.zip", secrets=(KEY,))
        with zipfile.ZipFile(out) as bundle:
            for name in bundle.namelist():
                assert KEY.encode() not in bundle.read(name), (cut, name)
            inner = tmp_path / f"{cut}.inner.capture.jsonl"
            inner.write_bytes(bundle.read("capture.jsonl"))
        assert read_capture(inner, strict=True).body == SCRUBBED
