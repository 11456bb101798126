"""Token accounting per agent and episode, and cost estimates from the price table."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.llm import (
    CallScope,
    Completion,
    LLMRuntime,
    Price,
    PriceTable,
    PriceTableError,
    Usage,
    UsageTracker,
    load_prices,
)


def _done(model: str, usage: Usage, cached: bool = False) -> Completion:
    return Completion("t", usage, 0.25, model, model.split("/")[0], "stop", from_cache=cached)


def test_packaged_prices_give_costs_and_unknown_models_none() -> None:
    prices = load_prices(env={})
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000, cached_tokens=0)
    assert prices.cost("openai/gpt-4.1-mini", usage) == pytest.approx(0.40 + 1.60)
    cached = Usage(prompt_tokens=1_000_000, completion_tokens=0, cached_tokens=500_000)
    assert prices.cost("openai/gpt-4.1-mini", cached) == pytest.approx(0.20 + 0.05)
    assert prices.cost("anthropic/claude-sonnet-4-20250514", usage) == pytest.approx(18.0)
    assert prices.cost("mock/negotiator", usage) == 0.0
    assert prices.cost("openai-api/somewhere/unknown-model", usage) is None


def test_packaged_tables_are_independent_though_parsed_once() -> None:
    # the packaged file is parsed once per process; each load still gets its own table,
    # so editing one (entries are documented as editable) changes no other
    first, second = load_prices(env={}), load_prices(env={})
    assert first is not second and first.entries == second.entries
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=0, cached_tokens=0)
    first.entries["openai/gpt-4.1-mini"] = Price(input=99.0, output=0.0)
    del first.entries["mock/*"]
    assert second.cost("openai/gpt-4.1-mini", usage) == pytest.approx(0.40)
    assert load_prices(env={}).cost("openai/gpt-4.1-mini", usage) == pytest.approx(0.40)
    assert load_prices(env={}).cost("mock/negotiator", usage) == 0.0


def test_anthropic_cache_writes_are_priced() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    usage = Usage(prompt_tokens=300, completion_tokens=0, cached_tokens=100, cache_write_tokens=100)
    assert price.cost(usage) == pytest.approx((100 * 3.0 + 100 * 0.3 + 100 * 3.75) / 1e6)


def test_user_price_file_via_env_and_errors_name_the_key(tmp_path: Path) -> None:
    good = tmp_path / "prices.yaml"
    good.write_text("models:\n  openai-api/gw/*: {input: 1, output: 2}\n")
    table = load_prices(env={"ACCORD_PRICES": str(good)})
    assert table.cost("openai-api/gw/llama", Usage(1_000_000, 0)) == 1.0
    assert table.price("openai/gpt-4.1") is None  # the user table replaces the packaged one
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  x/y: {input: -1, output: 2}\n")
    with pytest.raises(PriceTableError, match=r"bad.yaml: models.x/y.input"):
        load_prices(bad)
    bad.write_text("models:\n  x/y: {input: 1, outptu: 2}\n")
    with pytest.raises(PriceTableError, match="unknown field"):
        load_prices(bad)
    with pytest.raises(PriceTableError, match="cannot read"):
        load_prices(tmp_path / "missing.yaml")


def test_tracker_aggregates_per_agent_episode_and_model() -> None:
    tracker = UsageTracker(PriceTable({"p/known": Price(1.0, 2.0)}))
    tracker.record(_done("p/known", Usage(100, 10, 40)), CallScope("e1", "buyer", 1))
    tracker.record(_done("p/known", Usage(200, 20, 100)), CallScope("e1", "buyer", 2))
    tracker.record(_done("p/known", Usage(50, 5)), CallScope("e1", "seller", 1))
    tracker.record(_done("p/known", Usage(50, 5), cached=True), CallScope("e2", "seller", 1))
    e1 = tracker.episode("e1")
    assert e1["buyer"].calls == 2 and e1["buyer"].prompt_tokens == 300
    assert e1["buyer"].cached_tokens == 140 and e1["buyer"].cached_share == pytest.approx(140 / 300)
    assert e1["buyer"].cost == pytest.approx((300 * 1.0 + 30 * 2.0) / 1e6)
    assert tracker.by_agent()["seller"].calls == 2
    assert tracker.by_agent()["seller"].cache_hits == 1
    seller = tracker.by_agent()["seller"]
    assert seller.cost is not None
    assert seller.spent == pytest.approx(seller.cost / 2)  # the cached answer cost nothing now
    assert tracker.by_episode()["e2"].calls == 1
    assert tracker.totals().completion_tokens == 40
    assert tracker.get("e1", "seller").prompt_tokens == 50
    tracker.record(_done("q/unknown", Usage(1, 1)), CallScope("e2", "seller", 2))
    assert tracker.totals().cost is None and tracker.by_model()["p/known"].cost is not None
    tracker.forget(["e1"])
    assert set(tracker.by_episode()) == {"e2"}
    assert tracker.to_dict()["totals"]["calls"] == 2


async def test_runtime_tracker_counts_real_calls() -> None:
    async with LLMRuntime() as rt:
        client = rt.client("mock/echo")
        for turn in range(3):
            await client.complete([{"role": "user", "content": "a b c"}],
                                  scope=CallScope("ep", "me", turn))
    mine = rt.tracker.get("ep", "me")
    assert mine.calls == 3 and mine.prompt_tokens == 3 * 4 and mine.completion_tokens == 9
    assert mine.cost == 0.0  # mock/* is free in the packaged table
