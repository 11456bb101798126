"""A scenario file's game parts: ``rules`` (defaults of the protocol parameters that
explicit parameters override), public ``instructions`` and per-party briefs; errors name
the key."""

from __future__ import annotations

import asyncio
import copy
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.core.scenario import PartyBrief
from accord.domains.bargaining import ScenarioError, parse_scenario, run_negotiation
from accord.domains.bargaining.params import AcceptanceRule
from accord.domains.bargaining.rules import RULE_KEYS
from accord.domains.bargaining.runner import ParamError, check_params, with_rules

BASE: dict[str, Any] = {
    "name": "trio",
    "issues": {"x": [0, 1, 2]},
    "parties": {p: {"batna": 0.2, "utility": {"weights": {"x": 1}, "values": {
        "x": {0: s[0], 1: s[1], 2: s[2]}}}}
        for p, s in (("a", (1.0, 0.5, 0.0)), ("b", (0.0, 0.5, 1.0)), ("c", (0.0, 0.5, 1.0)))},
}


def scenario(**changes: Any):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return parse_scenario(data)


def test_rules_and_briefs_are_read() -> None:
    s = scenario(instructions="All of you: agree on x.", rules={
        "acceptance": {"k": 2, "required": ["a"]}, "thresholds": {"b": 0.4},
        "binding": "all", "opener": "b", "opening_offer": {"x": 1}, "max_rounds": 5})
    assert s.instructions == "All of you: agree on x."
    assert s.rules["opening_offer"] == {"x": 1}
    p = check_params(with_rules(s, {}))
    assert p.acceptance == AcceptanceRule(k=2, required=("a",)) and p.k == 2
    assert p.minimums({"a": 0.2}) == {"b": 0.4}
    data = copy.deepcopy(BASE)
    data["parties"]["a"].update(instructions="Only a reads this.",
                                persona={"name": "targeted_adv", "target": "c"})
    data["parties"]["b"]["persona"] = "greedy"
    s = parse_scenario(data)
    assert s.party("a").brief == PartyBrief("Only a reads this.", "targeted_adv", "c")
    assert s.party("b").brief == PartyBrief("", "greedy", "")
    assert s.party("c").brief is None


@pytest.mark.parametrize(("changes", "key", "problem"), [
    ({"rules": {"acceptance": {"k": 2, "required": ["zed"]}}}, "rules.acceptance",
     "'zed' is not a party"),
    ({"rules": {"acceptance": {"k": 0}}}, "rules.acceptance", "positive integer"),
    ({"rules": {"acceptance": {"k": 2, "veto": ["a"]}}}, "rules.acceptance",
     "unknown key 'veto'"),
    ({"rules": {"opener": "zed"}}, "rules.opener", "'zed' is not a party"),
    ({"rules": {"binding": "some"}}, "rules.binding", "accepters, all"),
    ({"rules": {"opening_offer": {"x": 1}}}, "rules.opening_offer", "needs an opener"),
    ({"rules": {"opener": "a", "opening_offer": {"x": 7}}}, "rules.opening_offer.x",
     "not a value"),
    ({"rules": {"opener": "a", "opening_offer": {}}}, "rules.opening_offer.x", "missing"),
    ({"rules": {"mediator": "pareto"}}, "rules.mediator", "not a scenario rule"),
    ({"rules": {"thresholds": {"zed": 1}}}, "rules.thresholds", "'zed' is not a party"),
    ({"rules": ["acceptance"]}, "rules", "expected a mapping"),
    ({"instructions": 3}, "instructions", "expected text"),
])
def test_bad_rules_name_the_key(changes: dict[str, Any], key: str, problem: str) -> None:
    with pytest.raises(ScenarioError) as info:
        scenario(**changes)
    assert info.value.key == key and problem in info.value.problem, str(info.value)


@pytest.mark.parametrize(("persona", "key", "problem"), [
    ("sneaky", "parties.a.persona", "unknown persona 'sneaky'"),
    ("targeted_adv", "parties.a.persona", "needs a target"),
    ({"name": "targeted_adv", "target": "zed"}, "parties.a.persona.target",
     "not a party"),
    ({"name": "greedy", "mood": "x"}, "parties.a.persona.mood", "unknown key"),
    (3, "parties.a.persona", "expected a persona name"),
])
def test_bad_personas_name_the_key(persona: Any, key: str, problem: str) -> None:
    data = copy.deepcopy(BASE)
    data["parties"]["a"]["persona"] = persona
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    assert info.value.key == key and problem in info.value.problem


def test_explicit_parameters_override_the_scenarios_rules() -> None:
    # the rules ask for all three; b and c accept a's opening x=1, a would need k=2
    s = scenario(rules={"opener": "a", "opening_offer": {"x": 1}, "max_rounds": 1})
    ruled = asyncio.run(run_negotiation(s, ["hardliner", "accept-all", "hardliner"], seed=0))
    assert ruled.status == "no_deal" and ruled.rounds == 1  # c (a hardliner) says no
    k2 = asyncio.run(run_negotiation(s, ["hardliner", "accept-all", "hardliner"], seed=0,
                                     params={"acceptance": 2}))
    assert k2.status == "agreement" and k2.record["agreement"] == {"x": 1}
    assert k2.record["rejected_by"] == ["c"] and k2.record["utilities"]["c"] == 0.2


def test_acceptance_parameter_errors_are_specific() -> None:
    with pytest.raises(ParamError, match="acceptance k must be a positive integer"):
        check_params({"acceptance": {"k": "5"}})
    with pytest.raises(ParamError, match="must be at least 1"):
        check_params({"acceptance": 0})
    with pytest.raises(ParamError, match="required must be a list of party names"):
        check_params({"acceptance": {"required": "a"}})
    assert check_params({"acceptance": 3}).k == 3


_ANY = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True),
              st.sampled_from(["a", "b", "zed", "all", "accepters", "greedy", "targeted_adv",
                               "", "x"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(
                                ["k", "required", "x", "name", "target", "a", "b"]),
                                inner, max_size=3)),
    max_leaves=6)


@settings(max_examples=int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10")) * 5, deadline=None,
          database=None, suppress_health_check=list(HealthCheck))
@given(rules=st.dictionaries(st.sampled_from([*RULE_KEYS, "nope"]), _ANY, max_size=4),
       persona=_ANY, instructions=_ANY)
def test_hostile_game_parts_load_or_fail_cleanly(rules: Any, persona: Any,
                                                 instructions: Any) -> None:
    data = copy.deepcopy(BASE)
    data["rules"] = rules
    data["instructions"] = instructions
    data["parties"]["a"]["persona"] = persona
    try:
        s = parse_scenario(data)
    except ScenarioError as exc:
        assert exc.key and exc.problem
        return
    p = check_params(with_rules(s, {}))  # what loaded is a valid set of parameters
    p.check_parties(s.name, s.party_names)


def test_a_minimum_must_be_a_finite_number() -> None:
    with pytest.raises(ParamError, match="the minimum of 'a' must be a finite number"):
        check_params({"thresholds": {"a": float("nan")}})
    with pytest.raises(ParamError, match="must be true, false or"):
        check_params({"thresholds": "yes"})
    with pytest.raises(ParamError, match="finite number"):
        check_params({"unanimity_bonus": {"a": float("inf")}})
