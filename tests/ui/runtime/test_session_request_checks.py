"""A session's decoder holds the request it sent: the checks that know what was asked run live.

Speech with ``stream_format: "sse"`` answered with one whole WAV body (LiteLLM does this) is a
warning, and the audio is still in the state, shown and playable.
"""

from __future__ import annotations

import asyncio
import io
import wave
from typing import Any

import pytest

from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


def _wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24000)
        w.writeframes(b"\x10\x00" * 4800)  # 0.2 s
    return out.getvalue()


class WavServer:
    """Answers any request with one WAV body, whatever was asked."""

    def __init__(self) -> None:
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        body = _wav()
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: audio/wav\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def _speech_spec(base: str, stream_format: str) -> Any:
    body = {"model": "tts", "input": "hi", "voice": "alloy", "response_format": "wav"}
    body["stream_format"] = stream_format
    spec = make_spec(provider_by_id("simulator"), "speech", body, None, base_url=base)
    assert spec is not None
    return spec


@pytest.mark.parametrize(("stream_format", "codes"), [("sse", ["audio_body"]), ("audio", [])])
def test_speech_sse_answered_with_one_wav_body(
    qloop: Any, stream_format: str, codes: list[str]
) -> None:
    from playground.ui.runtime.session import StreamSession

    server = WavServer()
    qloop.run(server.start())
    try:
        session = StreamSession("speech")
        qloop.do(session.start, _speech_spec(f"http://127.0.0.1:{server.port}/v1", stream_format))
        assert qloop.run(session.wait()) == "complete"
    finally:
        qloop.run(server.stop())
    state = session.state
    assert state is not None
    assert [f.code for f in state.findings] == codes
    assert state.audio is not None and len(state.audio.data) == 9600  # still playable PCM
    assert state.audio.container == "wav" and state.audio.sample_rate == 24000


def test_a_chat_run_knows_it_asked_for_usage(qloop: Any, sim: Any) -> None:
    from playground.protocol.requests import RequestParams, build_body
    from playground.ui.runtime.session import StreamSession

    params = RequestParams(model="sim-chat", prompt="Hi.", include_usage=True)
    spec = make_spec(
        provider_by_id("simulator"),
        "chat",
        build_body("chat", params),
        None,
        base_url=sim.base_url,
        extra_headers={"X-Sim-Pace": "instant"},
    )
    assert spec is not None
    session = StreamSession("chat")
    qloop.do(session.start, spec)
    assert qloop.run(session.wait()) == "complete"
    assert session.decoder is not None
    assert session.decoder.asked.known and session.decoder.asked.include_usage
    assert session.state is not None and session.state.findings == []  # the simulator's shape
