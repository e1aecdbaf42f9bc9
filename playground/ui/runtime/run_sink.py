"""RunSinkOfSession: one run's RunSink, forwarding to its session while the run is current."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.protocol.state import AudioState
    from playground.transport.errors import TransportError
    from playground.ui.runtime.session import StreamSession

__all__ = ["RunSinkOfSession"]


class RunSinkOfSession:
    """The RunSink of one run: the session forwards only while this run is its current one."""

    def __init__(self, session: StreamSession, generation: int) -> None:
        self.session = session
        self.generation = generation

    def _live(self) -> bool:
        return self.session._generation == self.generation

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        if self._live():
            self.session._on_request(method, url, headers, body)

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        if self._live():
            self.session._on_response(status, headers, t)

    def on_chunk(self, t: float, data: bytes) -> None:
        if self._live():
            self.session._on_chunk(t, data)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        if self._live():
            self.session._on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        if self._live():
            self.session._on_end(t)

    def flush(self) -> None:
        """Nothing is held here: the session batches its own updates per frame."""

    # ---- JobListener: what a job reports beside its bytes ------------------------------------
    def on_job(self, job: dict[str, object]) -> None:
        if self._live():
            self.session.jobUpdated.emit(job)

    def on_audio(self, audio: AudioState | None, t: float) -> None:
        if self._live():
            self.session._audio_arrived(audio, t)

    def run_failed(self) -> bool:
        session = self.session
        state = session.state
        return state is None or state.error is not None or session.run.transport_error is not None
