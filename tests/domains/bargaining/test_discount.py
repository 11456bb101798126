"""Time-discounted parties in bargaining: the scenario key, episode records, agents' views,
metrics and analysis (Genius's u x d^t with t = round / (max_rounds + 1))."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord.agents.negotiator_prompts import system_text
from accord.cli.main import app
from accord.core.scenario import Scenario
from accord.domains.bargaining import (
    ScenarioError,
    analyze,
    parse_scenario,
    resolve_scenario,
    run_negotiation,
)
from accord.domains.bargaining.metrics import bargaining_metrics
from accord.protocols.engine import EpisodeResult


def _discounted(name: str, discount: float) -> Scenario:
    sc = resolve_scenario(name)
    return dataclasses.replace(sc, parties=tuple(
        dataclasses.replace(p, discount=discount) for p in sc.parties))


def _run(sc: Scenario, lineup: list[str], rounds: int) -> EpisodeResult:
    return asyncio.run(run_negotiation(sc, lineup, params={"max_rounds": rounds}))


def _doc(discount: object) -> dict[str, object]:
    return {"name": "d", "issues": {"x": ["a", "b"]}, "parties": {
        "p": {"batna": 0.1, "discount": discount,
              "utility": {"weights": {"x": 1}, "values": {"x": {"a": 0, "b": 1}}}},
        "q": {"batna": 0.1, "utility": {"weights": {"x": 1}, "values": {"x": {"a": 1, "b": 0}}}}}}


def test_the_scenario_key_is_read_and_defaults_to_no_discount() -> None:
    sc = parse_scenario(_doc(0.9))
    assert [p.discount for p in sc.parties] == [0.9, 1.0]
    assert sc.discounted
    assert not resolve_scenario("buyer-seller").discounted  # existing files unchanged


@pytest.mark.parametrize("bad", [0, -0.1, 1.01, "half", None])
def test_a_bad_discount_names_the_key(bad: object) -> None:
    with pytest.raises(ScenarioError, match=r"parties\.p\.discount"):
        parse_scenario(_doc(bad))


def test_discounting_changes_the_outcome_and_the_record_is_hand_computable() -> None:
    plain = _run(resolve_scenario("buyer-seller"), ["boulware", "conceder"], 6)
    disc = _run(_discounted("buyer-seller", 0.3), ["boulware", "conceder"], 6)
    # undiscounted, the two hold out to the last round; discounted, the conceder's
    # acceptance weighs a round's waiting (0.3^(1/7) = 0.842) and takes an earlier deal
    assert plain.status == disc.status == "agreement"
    assert plain.record["round"] == 6 and "time" not in plain.record
    assert disc.record["round"] == 4
    assert disc.record["agreement"] != plain.record["agreement"]
    assert disc.record["agreement"] == {"price": 1000, "delivery_days": 5, "warranty_years": 3}
    # buyer: 0.6x0.55 + 0.15x0.7 + 0.25x1 = 0.685; seller: 0.7x0.55 + 0.2x0.6 = 0.505
    t = 4 / 7
    assert disc.record["time"] == pytest.approx(t)
    assert disc.record["undiscounted_utilities"] == pytest.approx({"buyer": 0.685,
                                                                   "seller": 0.505})
    assert disc.record["utilities"] == pytest.approx({"buyer": 0.685 * 0.3 ** t,
                                                      "seller": 0.505 * 0.3 ** t})
    assert disc.record["batna"] == {"buyer": 0.4, "seller": 0.35}  # the file's, undiscounted
    # the seller, who conceded, is better off by its discounted measure than holding out
    # to round 6 for the undiscounted game's deal
    assert disc.record["utilities"]["seller"] > plain.record["utilities"]["seller"] * 0.3 ** (
        6 / 7)


def test_no_deal_at_the_deadline_is_the_batna_discounted_at_t_1() -> None:
    res = _run(_discounted("buyer-seller", 0.5), ["hardliner", "hardliner"], 4)
    assert res.status == "no_deal" and res.reason == "bound_hit"
    assert res.record["time"] == 1.0
    assert res.record["utilities"] == pytest.approx({"buyer": 0.2, "seller": 0.175})
    m = bargaining_metrics(_discounted("buyer-seller", 0.5), res)
    assert m["gain_buyer"] == pytest.approx(0.0) and m["gain_seller"] == pytest.approx(0.0)


def test_metrics_gain_is_over_the_batna_at_the_same_time() -> None:
    sc = _discounted("buyer-seller", 0.3)
    res = _run(sc, ["boulware", "conceder"], 6)
    m = bargaining_metrics(sc, res)
    f = 0.3 ** (4 / 7)
    assert m["gain_buyer"] == pytest.approx((0.685 - 0.4) * f)
    assert m["gain_seller"] == pytest.approx((0.505 - 0.35) * f)
    plain = bargaining_metrics(resolve_scenario("buyer-seller"),
                               _run(resolve_scenario("buyer-seller"), ["boulware", "conceder"],
                                    6))
    assert plain["gain_buyer"] == pytest.approx(0.73 - 0.4)


def test_agents_see_their_own_discount_in_the_observation() -> None:
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers

    sc = _discounted("buyer-seller", 0.25)
    proto = AlternatingOffers(sc, AlternatingConfig(max_rounds=3))
    obs = proto.observe(proto.initial_state(), "buyer")
    assert obs.discount == 0.25  # type: ignore[attr-defined]
    assert obs.discount_time == 0.25  # type: ignore[attr-defined]
    assert obs.discount_now == pytest.approx(0.25 ** 0.25)  # type: ignore[attr-defined]
    assert obs.waiting_discount == pytest.approx(0.25 ** 0.25)  # type: ignore[attr-defined]
    assert obs.discounted(0.8) == pytest.approx(0.8 * 0.25 ** 0.25)  # type: ignore[attr-defined]


def test_the_llm_prompt_states_the_discount_only_when_there_is_one() -> None:
    payload = {"issues": {"x": ["a"]}, "weights": {"x": 1.0}, "values": {"x": {"a": 1.0}},
               "batna": 0.2}
    plain = system_text("p", ["q"], {"x": ["a"]}, payload, 0.2, 9)
    disc = system_text("p", ["q"], {"x": ["a"]}, payload, 0.2, 9, discount=0.5)
    assert "TIME COSTS YOU" not in plain and "discount" not in plain.lower()
    assert "TIME COSTS YOU" in disc
    assert "0.5^(r/10)" in disc and f"times {round(0.5 ** 0.1, 4)} in round 1" in disc
    # one sentence added, nothing else changed
    assert [ln for ln in disc.splitlines() if not ln.startswith("TIME COSTS YOU")] == \
        plain.splitlines()


def test_analysis_reports_its_time_and_scales_the_points() -> None:
    sc = _discounted("buyer-seller", 0.25)
    at0 = analyze(sc)
    plain = analyze(resolve_scenario("buyer-seller"))
    assert at0["time"] == 0.0 and at0["discount"] == {"buyer": 0.25, "seller": 0.25}
    assert at0["pareto"] == plain["pareto"] and at0["nash"] == plain["nash"]
    assert "time" not in plain
    half = analyze(sc, 0.5)
    assert half["batna"] == pytest.approx({"buyer": 0.2, "seller": 0.175})
    # the same outcomes are Pareto-optimal and Nash, their utilities halved (0.25^0.5)
    assert [p["outcome"] for p in half["pareto"]] == [p["outcome"] for p in plain["pareto"]]
    assert half["nash"]["outcome"] == plain["nash"]["outcome"]
    for p in ("buyer", "seller"):
        assert half["nash"]["utilities"][p] == pytest.approx(plain["nash"]["utilities"][p] / 2)
    with pytest.raises(ValueError, match="between 0 and 1"):
        analyze(sc, 1.5)


def test_cli_analyze_says_which_time(tmp_path: Path) -> None:
    import accord.domains.bargaining as pkg

    src = Path(pkg.__file__).parent / "data" / "buyer-seller.yaml"
    doc = yaml.safe_load(src.read_text(encoding="utf-8"))
    doc["parties"]["buyer"]["discount"] = 0.64
    path = tmp_path / "disc.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    runner = CliRunner()
    human = runner.invoke(app, ["analyze", str(path)])
    assert human.exit_code == 0, human.output
    assert "relative time t = 0" in human.output and "buyer 0.64" in human.output
    res = runner.invoke(app, ["analyze", str(path), "--time", "0.5", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["time"] == 0.5 and data["batna"]["buyer"] == pytest.approx(0.4 * 0.8)
    assert data["batna"]["seller"] == 0.35
    bad = runner.invoke(app, ["analyze", str(path), "--time", "2"])
    assert bad.exit_code == 2


def test_a_person_sees_the_discount_in_their_view() -> None:
    from accord.agents.human.bargaining import BargainingView
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers

    for sc, expect in ((_discounted("buyer-seller", 0.5), True),
                       (resolve_scenario("buyer-seller"), False)):
        proto = AlternatingOffers(sc, AlternatingConfig(max_rounds=3))
        view = BargainingView().view(proto.observe(proto.initial_state(), "seller"))
        assert ("discount" in view) is expect
        if expect:
            assert view["discount"] == 0.5 and view["discount_now"] == round(0.5 ** 0.25, 4)


def test_the_llm_negotiator_session_carries_its_discount() -> None:
    from accord.agents.registry import build_negotiator
    from accord.agents.spec import parse_agent_spec
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers

    agent = build_negotiator(parse_agent_spec("llm:mock/negotiator"), {"party": "buyer"})
    for sc, expect in ((_discounted("buyer-seller", 0.7), True),
                       (resolve_scenario("buyer-seller"), False)):
        proto = AlternatingOffers(sc, AlternatingConfig(max_rounds=5))
        obs = proto.observe(proto.initial_state(), "buyer")
        text = agent.system_prompt(obs)  # type: ignore[attr-defined]
        assert ("TIME COSTS YOU" in text) is expect
        if expect:
            assert "0.7^(r/6)" in text


def test_run_table_compares_with_the_batna_at_the_same_time(tmp_path: Path) -> None:
    """A discounted no-deal leaves each party at its discounted BATNA: "at BATNA", never a
    sycophancy mark against the undiscounted BATNA."""
    import accord.domains.bargaining as pkg

    doc = yaml.safe_load((Path(pkg.__file__).parent / "data" / "buyer-seller.yaml")
                         .read_text(encoding="utf-8"))
    for party in doc["parties"].values():
        party["discount"] = 0.5
    path = tmp_path / "disc.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    res = CliRunner().invoke(app, ["run", str(path), "--agents", "hardliner,hardliner",
                                   "--max-rounds", "4"])
    assert res.exit_code == 0, res.output
    assert "sycophancy" not in res.output and res.output.count("at BATNA") == 2
    assert "0.200" in res.output and "relative time t = 1.000" in res.output
