"""A bug-report bundle: one zip with the redacted request, capture, findings, timing, versions."""

from __future__ import annotations

import base64
import importlib.metadata
import itertools
import json
import platform
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playground.protocol import safe_json
from playground.protocol.capture import Capture, chunk_record
from playground.protocol.media import b64decode_lenient
from playground.protocol.redaction import (
    StreamScrubber,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
)
from playground.runs.journal import read_journal

__all__ = ["bundle_versions", "decode_run", "make_bundle"]

_PACKAGES = ("playground", "PySide6", "httpx", "qasync", "truststore", "keyring", "orjson")


def bundle_versions() -> dict[str, Any]:
    """The program's and the platform's versions (no Qt import: package metadata only)."""
    packages: dict[str, str | None] = {}
    for name in _PACKAGES:
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            packages[name] = None
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "packages": packages,
    }


def decode_run(run: Capture) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """(state summary, findings, timing) by decoding the capture's bytes again, offline."""
    from playground.protocol.stream import StreamDecoder
    from playground.protocol.timing import compute_timing

    sent = run.request.get("body") if run.request is not None else None
    decoder = StreamDecoder(
        run.route if run.route else "auto",
        request=sent if isinstance(sent, dict | str) else None,  # the checks that know the ask
    )
    status = run.response_status or 200
    end_t = float((run.end or {}).get("end") or (run.chunks[-1][0] if run.chunks else 0.0))
    if status >= 400:
        retry = run.header("retry-after")
        decoder.fail_before_stream(status, run.body, run.content_type, retry)
    else:
        decoder.set_content_type(run.content_type)
        for t, data in run.chunks:
            decoder.feed(data, t)
        if (run.end or {}).get("status") == "cancelled":
            decoder.cancel()  # before finish, as the window does: after it, the status is final
        decoder.finish(end_t)
    state = decoder.state
    error = state.error
    summary = {
        "route": decoder.route,
        "status": state.status,
        "http_status": run.response_status,
        "text": state.text[:2000],
        "error": None
        if error is None
        else {"message": error.message, "type": error.type, "status": error.status},
        "events": len(decoder.items),
    }
    findings = [f.as_json() for f in state.findings]
    first_byte = run.chunks[0][0] if run.chunks else None
    timing = compute_timing(decoder, run.response_at, first_byte, t_end=end_t).as_json()
    return summary, findings, timing


def _basic_timing(run: Capture) -> dict[str, Any]:
    times = [t for t, _d in run.chunks]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    return {
        "t_headers": run.response_at,
        "t_first_byte": times[0] if times else None,
        "t_last_byte": times[-1] if times else None,
        "t_end": (run.end or {}).get("end"),
        "chunks": len(times),
        "bytes": sum(len(d) for _t, d in run.chunks),
        "longest_gap": max(gaps) if gaps else None,
    }


def _redacted_capture_text(path: Path, secrets: tuple[str, ...]) -> str:
    """The capture file with its headers and URL redacted once more, and each secret scrubbed
    from the chunks' bytes too (base64 hides a key from a scrub of the line's text), a key cut
    across two chunks included: the capture may come from anywhere (File > Open)."""
    out: list[str] = []
    bytes_scrubber = StreamScrubber(secrets)
    t_last = 0.0

    def release() -> None:
        held = bytes_scrubber.flush()
        if held:
            out.append(json.dumps(chunk_record(t_last, held), separators=(",", ":")))

    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = safe_json.loads(line)
        except ValueError:
            out.append(scrub(line, *secrets))
            continue
        if isinstance(record, dict):
            if secrets and isinstance(record.get("b64"), str) and "t" in record:
                data = b64decode_lenient(record["b64"])
                if data is not None:
                    t_last = record["t"] if isinstance(record["t"], int | float) else t_last
                    record["b64"] = base64.b64encode(bytes_scrubber.feed(data)).decode("ascii")
            else:
                release()
            request = record.get("request")
            if isinstance(request, dict) and isinstance(request.get("headers"), dict):
                request["headers"] = redact_headers(request["headers"], secrets)
            if isinstance(request, dict) and isinstance(request.get("url"), str):
                request["url"] = redact_url(request["url"])
            response = record.get("response")
            if isinstance(response, dict) and isinstance(response.get("headers"), list):
                pairs = [
                    (str(p[0]), str(p[1]))
                    for p in response["headers"]
                    if isinstance(p, list) and len(p) == 2
                ]
                response["headers"] = [list(p) for p in redact_pairs(pairs, secrets)]
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        out.append(scrub(line, *secrets))
    release()
    return "\n".join(out) + "\n"


def make_bundle(
    capture: Path,
    out: Path,
    *,
    notes: str = "",
    secrets: tuple[str, ...] = (),
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write the bug-report zip for the run in ``capture`` to ``out``; returns ``out``.

    ``secrets`` (the keys the program knows) are scrubbed from every file as a last guard.
    """
    run = read_journal(Path(capture))
    request = dict(run.request or {})
    if isinstance(request.get("headers"), dict):
        request["headers"] = redact_headers(request["headers"])
    try:
        summary, findings, timing = decode_run(run)
    except Exception as exc:  # the decoder missing or failing must not lose the bundle
        summary = {"route": run.route or "auto", "decode_error": type(exc).__name__}
        findings = []
        timing = _basic_timing(run)
    timing.setdefault("transport", _basic_timing(run))
    meta = {
        "format": "playground-bug-report/1",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "route": run.route or "auto",
        "started_at": run.started_at,
        "response_status": run.response_status,
        "response_headers": [list(p) for p in redact_pairs(run.header_pairs)],
        "end": run.end,
        "notes": notes,
        **(extra or {}),
    }
    files = {
        "README.txt": (
            "playground bug report\n\n"
            "request.json   the request as sent, API keys redacted\n"
            "capture.jsonl  every byte chunk with its arrival time (playground-capture/1);\n"
            "               replay it with `playground --replay capture.jsonl` or\n"
            "               `playground inspect capture.jsonl --json`\n"
            "result.json    what the stream decoded to (status, text, error)\n"
            "findings.json  departures from the documented stream grammar\n"
            "timing.json    where the time went\n"
            "versions.json  program and platform versions\n"
            "run.json       response status and headers, notes\n"
        ),
        "request.json": json.dumps(request, indent=2, ensure_ascii=False),
        "capture.jsonl": _redacted_capture_text(Path(capture), secrets),
        "result.json": json.dumps(summary, indent=2, ensure_ascii=False),
        "findings.json": json.dumps(findings, indent=2, ensure_ascii=False),
        "timing.json": json.dumps(timing, indent=2, ensure_ascii=False, default=str),
        "versions.json": json.dumps(bundle_versions(), indent=2),
        "run.json": json.dumps(meta, indent=2, ensure_ascii=False, default=str),
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, scrub(text, *secrets))
    tmp.replace(out)  # atomic: a half-written zip never sits under the final name
    return out
