"""``negmas:CLASS`` agents: NegMAS negotiators seated in accord bargaining episodes.

The shared venv has no NegMAS: everything that needs it is skipped there (importorskip)
and runs in a venv with the ``accord[negmas]`` extra; the missing-extra error is tested
everywhere.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys

import pytest

from accord.agents.registry import build_negotiator
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.core.scenario import Scenario
from accord.core.trajectory import Trajectory
from accord.domains.bargaining import parse_scenario, resolve_scenario, run_negotiation
from accord.protocols.engine import EpisodeResult


def test_missing_negmas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "negmas", None)  # import negmas -> ImportError
    with pytest.raises(AgentSpecError, match=r"accord\[negmas\]"):
        build_negotiator(parse_agent_spec("negmas:AspirationNegotiator"),
                         {"party": "buyer", "scenario": resolve_scenario("buyer-seller")})


def _run(sc: Scenario, lineup: list[str], rounds: int = 20) -> EpisodeResult:
    return asyncio.run(run_negotiation(sc, lineup, params={"max_rounds": rounds}))


def _with_batna(name: str, party: str, batna: float) -> Scenario:
    sc = resolve_scenario(name)
    return dataclasses.replace(sc, parties=tuple(
        dataclasses.replace(p, batna=batna) if p.name == party else p for p in sc.parties))


def _check_records(sc: Scenario, res: EpisodeResult, seat: str) -> None:
    """The records a NegMAS seat leaves are those of any agent: JSON, valid moves only,
    a JSONL round trip; and its BATNA held: no accept or offer of its below it."""
    json.dumps(res.record)
    json.dumps(res.summary())
    assert res.status in ("agreement", "no_deal")
    assert not res.trajectory.of_kind("invalid") and not res.trajectory.of_kind("agent_error")
    again = Trajectory.from_jsonl(res.trajectory.to_jsonl())
    assert [e.to_dict() for e in again] == [e.to_dict() for e in res.trajectory]
    party = sc.party(seat)
    table = None
    for ev in res.trajectory:
        if ev.kind != "move":
            continue
        mv = ev.move or {}
        offer = mv.get("package") or (mv.get("counter") or {}).get("package")
        if ev.party == seat and offer is not None:
            assert party.utility(offer) >= party.batna, (ev.to_dict(), party.batna)
        if ev.party == seat and mv.get("kind") == "accept":
            assert table is not None and party.utility(table) >= party.batna
        if ev.party != seat and offer is not None:
            table = offer
    if res.status == "agreement":
        assert res.flags["accepted_below_batna"][seat] is False
        assert res.record["utilities"][seat] >= party.batna


@pytest.mark.parametrize("cls", ["AspirationNegotiator", "NaiveTitForTatNegotiator",
                                 "negmas.sao.negotiators.AspirationNegotiator"])
def test_a_negmas_agent_against_boulware(cls: str) -> None:
    pytest.importorskip("negmas")
    # a binding BATNA: the seller's 0.5 rules out most of the buyer's opening offers
    sc = _with_batna("buyer-seller", "seller", 0.5)
    res = _run(sc, ["boulware", f"negmas:{cls}"])
    _check_records(sc, res, "seller")
    # and in the other seat
    res2 = _run(_with_batna("buyer-seller", "buyer", 0.5), [f"negmas:{cls}", "boulware"])
    _check_records(_with_batna("buyer-seller", "buyer", 0.5), res2, "buyer")


def test_aspiration_agrees_with_boulware_above_both_batnas() -> None:
    pytest.importorskip("negmas")
    sc = resolve_scenario("buyer-seller")
    res = _run(sc, ["negmas:AspirationNegotiator", "boulware"])
    assert res.status == "agreement"
    for p in sc.parties:
        assert res.record["utilities"][p.name] >= p.batna
    # NegMAS's offers went through accord's protocol: the opening one is the buyer's best
    first = res.trajectory.of_kind("move")[0]
    assert first.party == "buyer" and first.move is not None
    best = max(sc.utility_matrix[:, 0])
    assert sc.party("buyer").utility(first.move["package"]) == pytest.approx(best)


def test_options_reach_the_negotiator_and_bad_ones_are_clear() -> None:
    pytest.importorskip("negmas")
    ctx = {"party": "buyer", "scenario": resolve_scenario("buyer-seller")}
    agent = build_negotiator(parse_agent_spec(
        "negmas:AspirationNegotiator?max_aspiration=0.9&aspiration_type=linear"), ctx)
    assert agent.options == {"max_aspiration": 0.9, "aspiration_type": "linear"}  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="no class 'NoSuchNegotiator'"):
        build_negotiator(parse_agent_spec("negmas:NoSuchNegotiator"), ctx)
    with pytest.raises(AgentSpecError, match="cannot import module"):
        build_negotiator(parse_agent_spec("negmas:nosuchpkg.Thing"), ctx)
    with pytest.raises(AgentSpecError, match="not a NegMAS negotiator"):
        build_negotiator(parse_agent_spec("negmas:negmas.outcomes.CategoricalIssue"), ctx)
    with pytest.raises(AgentSpecError, match="needs a class"):
        build_negotiator(parse_agent_spec("negmas"), ctx)
    with pytest.raises(AgentSpecError, match="bad options"):
        build_negotiator(parse_agent_spec("negmas:AspirationNegotiator?no_such_kw=1"), ctx)


def test_more_than_two_parties_is_refused() -> None:
    pytest.importorskip("negmas")
    three = parse_scenario({"name": "three", "issues": {"x": ["a", "b"]}, "parties": {
        n: {"batna": 0, "utility": {"weights": {"x": 1}, "values": {"x": {"a": 0, "b": 1}}}}
        for n in ("p", "q", "r")}})
    with pytest.raises(AgentSpecError, match="one other party"):
        build_negotiator(parse_agent_spec("negmas:AspirationNegotiator"),
                         {"party": three.party_names[0], "scenario": three})


def test_the_negmas_ufun_equals_accord_utility_discount_included() -> None:
    pytest.importorskip("negmas")
    from negmas.sao import SAOMechanism, SAOState

    from accord.agents.negmas_adapter import negmas_ufun

    sc = parse_scenario({"name": "t", "issues": {"x": ["a", "b", "c"], "n": [1, 2]},
                         "parties": {
                             "p": {"batna": 0.25, "discount": 0.5, "utility": {
                                 "weights": {"x": 0.7, "n": 0.3},
                                 "values": {"x": {"a": 0, "b": 0.4, "c": 1}, "n": {1: 1, 2: 0}}}},
                             "q": {"batna": 0.1, "utility": {"type": "table", "default": 0.2,
                                                             "table": {"x=a,n=2": 0.9}}}}})
    for party in sc.parties:
        os_, ufun = negmas_ufun(party.utility, sc.space, party.batna, party.discount)
        if party.discount < 1:
            mech = SAOMechanism(outcome_space=os_, n_steps=3)
            from negmas.sao.negotiators import AspirationNegotiator

            neg = AspirationNegotiator(name="p")
            mech.add(neg, ufun=ufun)
            mech._current_state = SAOState(running=True, step=1, relative_time=0.5)
            neg._on_negotiation_start(mech._current_state)  # as the adapter does
            for k in range(sc.space.size):
                pkg = sc.space.package(k)
                want = party.utility(pkg) * 0.5 ** 0.5
                assert float(neg.ufun(tuple(pkg.values()))) == pytest.approx(want)
            assert float(neg.ufun.reserved_value) == pytest.approx(0.25)
            continue
        assert float(ufun.reserved_value) == party.batna
        for k in range(sc.space.size):
            pkg = sc.space.package(k)
            assert float(ufun(tuple(pkg.values()))) == pytest.approx(party.utility(pkg))


def test_a_discounted_negmas_seat() -> None:
    pytest.importorskip("negmas")
    sc = resolve_scenario("buyer-seller")
    sc = dataclasses.replace(sc, parties=tuple(
        dataclasses.replace(p, discount=0.5) for p in sc.parties))
    res = _run(sc, ["negmas:NaiveTitForTatNegotiator", "conceder"], 10)
    _check_records(sc, res, "buyer")
    t = res.record["time"]
    for p in sc.parties:
        assert res.record["utilities"][p.name] == pytest.approx(
            res.record["undiscounted_utilities"][p.name] * 0.5 ** t)


def test_accord_run_seats_a_negmas_agent() -> None:
    pytest.importorskip("negmas")
    from typer.testing import CliRunner

    from accord.cli.main import app

    res = CliRunner().invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                                   "negmas:AspirationNegotiator,boulware", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "agreement" and out["utilities"]["buyer"] >= 0.4
