from typing import Any
from test_session import SlowServer
from playground.transport.client import build_spec
from playground.transport.providers import provider_by_id

def test_dbg(qloop: Any) -> None:
    from playground.ui.session import StreamSession, _RunSink
    log = []
    for name in ("on_request","on_response","on_chunk","on_transport_error","on_end"):
        orig = getattr(_RunSink, name)
        def wrap(self, *a, _o=orig, _n=name):
            if _n != "on_chunk": log.append((self.generation, _n, a[:2] if _n!="on_request" else a[:2]))
            return _o(self, *a)
        setattr(_RunSink, name, wrap)
    server = SlowServer()
    qloop.run(server.start())
    session = StreamSession("chat")
    spec = build_spec(provider_by_id("custom"), "chat", {"model": "m", "stream": True, "messages": []}, None, base_url=f"http://127.0.0.1:{server.port}/v1")
    import asyncio
    async def scenario():
        session.start(spec)
        while session.state is None or len(session.state.text) <= 8:
            await asyncio.sleep(0.01)
        first_task = session._task
        session.start(spec)
        while not first_task.done():
            await asyncio.sleep(0.01)
        assert first_task.cancelled()
        while not (server.connections == 2 and server.closed_at is not None):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
    qloop.run(scenario())
    assert session.is_running, log
