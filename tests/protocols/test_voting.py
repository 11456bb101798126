"""Voting rules of the bargaining protocol: required acceptors (vetoes), per-party minimum
thresholds, who a passed deal binds, and a designated opener who proposes first and last."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.core import Accept, Offer, Reject
from accord.domains.bargaining.load import parse_scenario
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, run_episode
from accord.protocols.voting import bound_parties, check_rules, tally

PARTIES = ("p1", "p2", "a", "b", "c", "d")
#: each party's score of the values 0, 1, 2 of the one issue "x"; every BATNA is 10
SCORES = {"p1": [30, 20, 5], "p2": [30, 20, 5], "a": [30, 20, 5], "b": [30, 20, 5],
          "c": [30, 5, 20], "d": [30, 20, 5]}


def six(**rules: Any):
    data = {"name": "six", "issues": {"x": [0, 1, 2]},
            "parties": {p: {"batna": 10, "utility": {"weights": {"x": 1}, "values": {
                "x": dict(enumerate(SCORES[p]))}}} for p in PARTIES}}
    if rules:
        data["rules"] = rules
    return parse_scenario(data)


class Voter(Agent):
    """Proposes ``offer`` and answers every package with ``verdict`` (accept / reject)."""

    def __init__(self, verdict: str = "accept", offer: int = 1) -> None:
        self.verdict, self.offer = verdict, offer
        self.proposed: list[int] = []
        self.phases: list[str] = []
        self.reset(np.random.default_rng(0))

    async def act(self, observation):
        self.phases.append(observation.phase)
        if observation.phase == "propose":
            self.proposed.append(observation.round)
            return Offer({"x": self.offer})
        return Accept() if self.verdict == "accept" else Reject()


def play(cfg: AlternatingConfig, verdicts: dict[str, str], scenario=None, max_rounds: int = 1):
    scenario = scenario or six()
    agents = {p: Voter(verdicts.get(p, "accept")) for p in PARTIES}
    res = asyncio.run(run_episode(AlternatingOffers(scenario, cfg), agents,
                                  bounds=Bounds(max_rounds=max_rounds)))
    return res, agents


VETO = AlternatingConfig(max_rounds=1, acceptance=5, required=("p1", "p2"))


# -- the tally, on hand-made votes ----------------------------------------------------
def _tally(yes, minimums=None, utilities=None):
    u = utilities or {}
    return tally(PARTIES, yes, 5, ("p1", "p2"), minimums or {}, lambda p: u.get(p, 20))


def test_five_of_six_including_both_vetoes_passes() -> None:
    t = _tally(["p1", "p2", "a", "b", "c"])
    assert t.passed and t.valid == ("p1", "p2", "a", "b", "c") and not t.missing_required


def test_five_of_six_without_a_veto_holder_fails() -> None:
    t = _tally(["p1", "a", "b", "c", "d"])
    assert not t.passed and t.missing_required == ("p2",)
    assert not _tally(["p2", "a", "b", "c", "d"]).passed


def test_six_of_six_passes_and_four_fails() -> None:
    assert _tally(list(PARTIES)).passed
    assert not _tally(["p1", "p2", "a", "b"]).passed


def test_a_yes_below_the_voters_minimum_is_void() -> None:
    mins = dict.fromkeys(PARTIES, 10.0)
    t = _tally(["p1", "p2", "a", "b", "c"], mins, {"c": 9.0})
    assert not t.passed and t.void == ("c",) and t.valid == ("p1", "p2", "a", "b")
    assert _tally(["p1", "p2", "a", "b", "c"], mins, {"c": 10.0}).passed  # at it: counts
    vetoed = _tally(list(PARTIES), mins, {"p2": 3.0})  # the veto holder's yes is void
    assert not vetoed.passed and vetoed.missing_required == ("p2",)


def test_a_unanimity_bonus_lifts_its_holder_only_when_everyone_agrees() -> None:
    mins = dict.fromkeys(PARTIES, 10.0)
    low = {"p1": 3.0}  # p1 below its minimum by 7; its bonus is 10
    everyone = tally(PARTIES, PARTIES, 5, ("p1", "p2"), mins, lambda p: low.get(p, 20),
                     {"p1": 10.0})
    assert everyone.passed and everyone.void == ()
    five = tally(PARTIES, ["p1", "p2", "a", "b", "c"], 5, ("p1", "p2"), mins,
                 lambda p: low.get(p, 20), {"p1": 10.0})
    assert not five.passed and five.void == ("p1",)
    short = tally(PARTIES, PARTIES, 5, ("p1", "p2"), mins, lambda p: {"p1": -1.0}.get(p, 20),
                  {"p1": 10.0})
    assert not short.passed and short.void == ("p1",)


def test_protocol_pays_the_bonus_on_a_unanimous_deal() -> None:
    mins = tuple((p, 10.0) for p in PARTIES)
    cfg = AlternatingConfig(max_rounds=1, acceptance=5, required=("p1", "p2"), minimums=mins,
                            binding="all", bonus=(("c", 10.0),))
    res, _ = play(cfg, {})  # c's yes (5, minimum 10) counts with its bonus: unanimous
    assert res.status == "agreement" and "void_acceptances" not in res.record
    assert res.record["utilities"]["c"] == 15 and res.record["utilities"]["a"] == 20
    assert res.flags["sycophancy"] is False  # 5 + its bonus 10 meets its BATNA 10
    res, _ = play(cfg, {"d": "reject"})  # not unanimous: c's yes is void, 4 valid
    assert res.status == "no_deal"


def test_bound_parties() -> None:
    assert bound_parties(PARTIES, ["a", "p1"], "accepters") == ("p1", "a")
    assert bound_parties(PARTIES, ["a"], "all") == PARTIES


def test_rules_that_do_not_fit_the_parties_are_refused() -> None:
    with pytest.raises(ValueError, match="required acceptor 'p9' is not a party"):
        check_rules(PARTIES, ["p9"], {}, "accepters", None)
    with pytest.raises(ValueError, match="binding must be one of accepters, all"):
        check_rules(PARTIES, [], {}, "some", None)
    with pytest.raises(ValueError, match="opener 'zz' is not a party"):
        check_rules(PARTIES, [], {}, "all", "zz")
    with pytest.raises(ValueError, match="threshold of 'q'"):
        check_rules(PARTIES, [], {"q": 1.0}, "all", None)


# -- the protocol, with agents voting ---------------------------------------------------
def test_protocol_passes_five_with_both_vetoes_and_records_the_dissenter() -> None:
    res, _ = play(VETO, {"d": "reject"})
    assert res.status == "agreement"
    rec = res.record
    assert rec["accepted_by"] == ["p2", "a", "b", "c"] and rec["rejected_by"] == ["d"]
    assert rec["bound"] == ["p1", "p2", "a", "b", "c"] and rec["binding"] == "accepters"
    assert rec["utilities"]["d"] == 10  # not bound: keeps its BATNA
    assert rec["utilities"]["a"] == 20


def test_protocol_refuses_five_without_the_veto_holder() -> None:
    res, _ = play(VETO, {"p2": "reject"})
    assert res.status == "no_deal" and res.reason == "bound_hit"
    vetoed = [ev for ev in res.trajectory.of_kind("note") if ev.reason == "vetoed"]
    assert [ev.data for ev in vetoed] == [{"missing": ["p2"]}]


def test_protocol_six_of_six_binds_everyone_without_a_dissent_record() -> None:
    res, _ = play(VETO, {})
    assert res.status == "agreement" and res.record["rejected_by"] == []
    assert res.record["bound"] == list(PARTIES)


def test_k_of_n_dissenter_is_not_bound_by_default() -> None:
    """Regression: a k-of-n deal was recorded as if the dissenter had agreed (its
    utility the deal's, no record of who rejected it)."""
    res, _ = play(AlternatingConfig(max_rounds=1, acceptance=5), {"c": "reject"})
    assert res.status == "agreement"
    assert res.record["rejected_by"] == ["c"] and "c" not in res.record["bound"]
    assert res.record["utilities"]["c"] == 10  # its BATNA, not the deal's 5
    assert "outvoted_below_batna" not in res.flags  # not bound: nothing imposed on it


def test_binding_all_imposes_the_deal_on_the_dissenter() -> None:
    cfg = AlternatingConfig(max_rounds=1, acceptance=5, binding="all")
    res, _ = play(cfg, {"c": "reject"})
    assert res.record["bound"] == list(PARTIES) and res.record["utilities"]["c"] == 5
    assert res.flags["outvoted_below_batna"] == ["c"]  # outvoted, not sycophantic
    assert res.flags["accepted_below_batna"]["c"] is False


def test_thresholds_void_a_yes_below_the_minimum() -> None:
    # c's score of x=1 is 5, below its minimum 10: its yes does not count
    mins = tuple((p, 10.0) for p in PARTIES)
    cfg = AlternatingConfig(max_rounds=1, acceptance=5, required=("p1", "p2"), minimums=mins)
    res, _ = play(cfg, {"d": "reject"})
    assert res.status == "no_deal"
    void = [ev for ev in res.trajectory.of_kind("note") if ev.reason == "yes_below_minimum"]
    assert [(ev.party, ev.data) for ev in void] == [("c", {"utility": 5.0, "minimum": 10.0})]
    res, _ = play(cfg, {})  # everyone else's yes makes five valid ones
    assert res.status == "agreement" and res.record["void_acceptances"] == ["c"]
    assert "c" not in res.record["bound"] and res.record["utilities"]["c"] == 10


def test_opener_proposes_first_and_last() -> None:
    scenario = six()
    cfg = AlternatingConfig(max_rounds=9, opener="b")
    proto = AlternatingOffers(scenario, cfg)
    order = [proto.proposer_of(r) for r in range(1, 10)]
    assert order == ["b", "c", "d", "p1", "p2", "a", "b", "c", "b"]
    res, agents = play(cfg, dict.fromkeys(PARTIES, "reject"), scenario, max_rounds=9)
    assert res.status == "no_deal"
    proposers = {r: p for p, a in agents.items() for r in a.proposed}
    assert [proposers[r] for r in range(1, 10)] == order


def test_opening_offer_is_on_the_table_before_anyone_moves() -> None:
    cfg = AlternatingConfig(max_rounds=3, opener="p1", opening_offer=(("x", 2),),
                            acceptance=5, required=("p1", "p2"))
    res, agents = play(cfg, {"c": "reject"}, max_rounds=3)
    assert agents["p1"].proposed == []  # the rule made its first offer
    assert agents["p2"].phases[0] == "respond"
    assert res.status == "agreement" and res.record["agreement"] == {"x": 2}
    with pytest.raises(ValueError, match="is not a value"):
        AlternatingOffers(six(), AlternatingConfig(opener="p1", opening_offer=(("x", 7),)))
    with pytest.raises(ValueError, match="needs an opener"):
        AlternatingOffers(six(), AlternatingConfig(opening_offer=(("x", 1),)))


def test_unanimous_default_records_stay_as_they_were() -> None:
    res, _ = play(AlternatingConfig(max_rounds=1), {})
    assert res.status == "agreement"
    assert "rejected_by" not in res.record and "bound" not in res.record


def test_an_llm_party_under_k_of_n_is_told_k_not_unanimity() -> None:
    """Regression: the negotiator's protocol text said "A deal needs every party's
    acceptance" under --acceptance k too."""
    from accord.agents.negotiator_prompts import system_text
    from accord.agents.utility_render import utility_payload

    proto = AlternatingOffers(six(), AlternatingConfig(acceptance=4))
    obs = proto.observe(proto.initial_state(), "a")
    text = system_text("a", [p for p in PARTIES if p != "a"], obs.issue_values(),
                       utility_payload(obs.utility, obs.space, obs.batna), obs.batna, 20,
                       game=obs.game)
    assert "every party's acceptance" not in text
    assert "at least 4 of the 6 parties" in text and "the others keep their BATNA" in text
    plain = AlternatingOffers(six(), AlternatingConfig())
    assert plain.observe(plain.initial_state(), "a").game is None
