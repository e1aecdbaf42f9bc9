"""The context gauge before sending: the body's tokens against the model's window (amber from
80 %, red from 95 %, "unknown window" without one), the gateway's counting endpoint where the
route has one (the simulator's), and the reported input beside the estimate after a run."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from panel_helpers import say, sim_panel

from playground.protocol.accounting.models_meta import ModelInfo

pytestmark = pytest.mark.timeout(120)

PROMPT = "Count the words of this prompt, and the numbers 1 2 3, please. " * 4


def _gauge(panel: Any, window: int | None) -> Any:
    gauge = panel.context_parts.gauge
    gauge.model = lambda: ("sim-reasoner", ModelInfo("sim-reasoner", context_window=window))
    return gauge


def test_the_gauge_turns_amber_then_red_on_a_small_window(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim)
    panel.editor.prompt_box().setPlainText(PROMPT)
    gauge = _gauge(panel, None)
    gauge.update_now()
    assert gauge.level == "unknown" and "unknown window" in gauge.label.text()
    assert "estimate" in gauge.label.text()
    total = gauge.estimate.total
    assert gauge.estimate.new_message > 0 and total > 40
    _gauge(panel, int(total / 0.5)).update_now()
    assert gauge.level == "ok"
    _gauge(panel, int(total / 0.85)).update_now()
    assert gauge.level == "amber"
    _gauge(panel, total).update_now()
    assert gauge.level == "red" and "(100.0%)" in gauge.label.text()
    assert "new message:" in gauge.toolTip() and "system:" in gauge.toolTip()


def test_typing_updates_the_gauge_after_a_pause(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim)
    gauge = _gauge(panel, 100000)
    gauge.update_now()
    before = gauge.estimate.total
    panel.editor.prompt_box().setPlainText(PROMPT)  # the editor's changed: debounced
    qloop.wait_until(lambda: gauge.estimate.total > before, 5)


@pytest.mark.parametrize("route", ["responses", "messages"])
def test_the_counting_endpoint_counts_and_the_run_reports_beside_it(
    qloop: Any, sim: Any, route: str
) -> None:
    from playground.transport.counting import count_input_tokens

    panel = sim_panel(route, sim)

    async def counter(route_: str, body: dict[str, Any]) -> int | None:
        async with httpx.AsyncClient() as client:
            return await count_input_tokens(client, sim.base_url, {}, route_, body)

    gauge = _gauge(panel, 200000)
    gauge.counter = counter
    panel.editor.prompt_box().setPlainText(PROMPT)

    gauge.update_now()  # asked on a worker thread; the answer comes back as a signal
    qloop.wait_until(lambda: gauge.estimate.source == "counted", 10)
    assert gauge.estimate.source == "counted" and "· counted" in gauge.label.text()
    counted = gauge.estimate.counted
    offline = sum(
        getattr(gauge.estimate, n)
        for n in ("system", "tools", "history", "attachments", "new_message")
    )
    assert abs(offline - counted) <= 0.02 * counted  # the estimate agrees with the simulator
    assert say(qloop, panel, PROMPT) == "complete"
    assert gauge.reported is not None and gauge.reported > 0
    qloop.wait_until(lambda: "· reported " in gauge.label.text(), 5)
