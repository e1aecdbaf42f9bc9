"""`--dump-state` with repeated `--prompt` (a conversation): each request's `cache` and `cost`,
the last one's at the top level and the conversation's `cost_total`, on chat, responses and
messages: a stable prefix hits, a short prompt is below the minimum, a provider that reports
no cache fields is `not_reported` (never 0), an idle pause past the lifetime is `expired`."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from headless_helpers import HeadlessRun, async_warnings, run_headless_batch

from playground.sim.server import SimServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

LONG = "Tell me how the simulator's prompt cache keeps a prefix, in a few sentences please. " * 5
ROUTES = ("chat", "responses", "messages")
# Anthropic caches nothing without a breakpoint: a top-level cache_control (automatic caching)
# marks the last block of each request.
MARK = ("--body", '{"cache_control": {"type": "ephemeral"}}')


def _args(route: str, prompts: list[str], *extra: str) -> tuple[str, ...]:
    said = [a for p in prompts for a in ("--prompt", p)]
    mark = MARK if route == "messages" else ()
    return ("--route", route, *said, "--pace", "instant", *mark, *extra)


CASES: dict[tuple[str, str], tuple[str, ...]] = {}
for _route in ROUTES:
    CASES[(_route, "stable")] = _args(_route, [LONG, "And then?", "Thanks, that helps."])
    CASES[(_route, "short")] = _args(_route, ["Hi", "Ok"])
    CASES[(_route, "silent")] = _args(_route, [LONG, "And then?"], "--fault", "no-cache-usage")
EXPIRED = {
    route: _args(route, [LONG, "And then?"], "--provider", "custom", "--model", "sim-chat")
    for route in ROUTES
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], HeadlessRun]:
    tmp = tmp_path_factory.mktemp("headless-cache")
    keys = list(CASES)
    found = run_headless_batch(tmp, [CASES[k] for k in keys], parallel=3, timeout=400)
    out = dict(zip(keys, found, strict=True))
    # A simulator whose cache forgets at once (--cache-ttl 0), as the custom provider's URL.
    with SimServer(cache_ttl=0) as sim:
        settings = tmp / "expired" / "settings.ini"
        settings.parent.mkdir(parents=True)
        settings.write_text(f"[base_url]\ncustom={sim.base_url}\n", encoding="utf-8")
        routes = list(EXPIRED)
        done = run_headless_batch(
            tmp / "expired",
            [EXPIRED[r] for r in routes],
            parallel=3,
            timeout=200,
            env_extra={"PLAYGROUND_SETTINGS": str(settings)},
        )
    out |= {(r, "expired"): run for r, run in zip(routes, done, strict=True)}
    return out


def _dump(run: HeadlessRun) -> dict[str, Any]:
    assert run.returncode == 0, (run.args, run.stderr[-2000:])
    assert async_warnings(run.stderr) == [], run.stderr[-2000:]
    assert run.dump is not None
    dump: dict[str, Any] = run.dump
    return dump


@pytest.mark.parametrize("route", ROUTES)
def test_a_stable_prefix_hits_and_is_priced(
    runs: dict[tuple[str, str], HeadlessRun], route: str
) -> None:
    dump = _dump(runs[(route, "stable")])
    requests = dump["requests"]
    assert len(requests) == 3
    assert [r["cache"]["status"] for r in requests] == ["cold", "hit", "hit"]
    for earlier, later in itertools.pairwise(requests):
        assert later["cache"]["cached_tokens"] >= earlier["cache"]["input_tokens"] * 0.9
        assert later["cache"]["divergence"] is None
    for request in requests:
        cost = request["cost"]
        assert set(cost) == {"total", "currency", "lines"} and cost["currency"] == "USD"
        for line in cost["lines"]:
            assert set(line) == {"field", "tokens", "price", "amount"}
            assert abs(line["amount"] - line["tokens"] * line["price"]) < 1e-12
    assert dump["cache"] == requests[-1]["cache"] and dump["cost"] == requests[-1]["cost"]
    for request in requests:  # the offline estimate, within 2 % of what the simulator counted
        context = request["context"]
        assert context["source"] == "estimate" and context["context_window"] > 0
        assert abs(context["total"] - context["reported"]) <= 0.02 * context["reported"]
        assert context["reported"] == request["cache"]["input_tokens"]
    total = sum(r["cost"]["total"] for r in requests)
    assert abs(dump["cost_total"]["total"] - total) < 1e-9


@pytest.mark.parametrize("route", ROUTES)
def test_a_short_prompt_is_below_the_minimum(
    runs: dict[tuple[str, str], HeadlessRun], route: str
) -> None:
    requests = _dump(runs[(route, "short")])["requests"]
    assert [r["cache"]["status"] for r in requests] == ["below_minimum", "below_minimum"]
    assert requests[1]["cache"]["cached_tokens"] == 0


@pytest.mark.parametrize("route", ROUTES)
def test_no_cache_fields_is_not_reported_never_zero(
    runs: dict[tuple[str, str], HeadlessRun], route: str
) -> None:
    requests = _dump(runs[(route, "silent")])["requests"]
    for request in requests:
        assert request["cache"]["status"] == "not_reported"
        assert request["cache"]["cached_tokens"] is None
        assert request["cache"]["input_tokens"] > 0


@pytest.mark.parametrize("route", ROUTES)
def test_a_pause_past_the_lifetime_is_expired(
    runs: dict[tuple[str, str], HeadlessRun], route: str
) -> None:
    requests = _dump(runs[(route, "expired")])["requests"]
    assert [r["cache"]["status"] for r in requests] == ["cold", "expired"]
    assert requests[1]["cache"]["cached_tokens"] == 0
