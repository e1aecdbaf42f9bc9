"""The panel's fault picker offers only the faults that act on its route (the simulator's
FAULT_ROUTES), in the real window."""

from __future__ import annotations

from typing import Any

import pytest

from playground.sim.fault_names import FAULTS


def _offered(panel: Any) -> list[str]:
    return [panel.fault.itemData(i) for i in range(panel.fault.count())]


@pytest.mark.parametrize("route", ["images", "speech", "transcription"])
def test_media_panels_do_not_offer_faults_that_do_nothing_there(window: Any, route: str) -> None:
    offered = _offered(window.show_panel(route))
    assert "out-of-order" not in offered and "incomplete" not in offered
    assert offered[0] == "none" and "drop" in offered and "http-429" in offered


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_text_panels_offer_every_fault(window: Any, route: str) -> None:
    assert _offered(window.show_panel(route)) == list(FAULTS)


@pytest.mark.parametrize(("route", "fault"), [("images", "out-of-order"), ("speech", "incomplete")])
def test_a_headless_fault_that_would_do_nothing_is_a_usage_error(route: str, fault: str) -> None:
    from playground.ui.arguments import UsageError, parse_args

    with pytest.raises(
        UsageError, match=rf"^the fault '{fault}' does not act on the {route} route"
    ):
        parse_args(["--route", route, "--prompt", "a", "--fault", fault, "--exit-when-done"])
    assert parse_args(["--route", route, "--prompt", "a", "--fault", "drop"]).fault == "drop"
