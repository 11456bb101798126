"""Code agents: utility-aware proposals, learning from rejections, scripted steps."""

from __future__ import annotations

import pytest

from accord.domains.task_exchange import ScriptedAgent, UtilityAwareAgent, get_scenario
from accord.domains.task_exchange.agents import selfish_agent
from accord.domains.task_exchange.domain import build_agent, build_protocol, play
from accord.domains.task_exchange.scripted import parse_script


@pytest.mark.parametrize("scenario", ["cooperative", "competitive"])
@pytest.mark.parametrize("strategy", ["utility-aware", "baseline"])
async def test_utility_aware_never_proposes_below_its_original(scenario: str,
                                                                strategy: str) -> None:
    sc = get_scenario(scenario)
    for seed in range(3):
        res = await play(build_protocol(scenario, {"strategy": strategy}),
                         [UtilityAwareAgent(), UtilityAwareAgent()], seed)
        assert res.record["status"] in {"agreed", "disagreed"}
        assert res.trajectory.of_kind("invalid") == []
        for p in res.record["proposals"]:
            masks = {r: int(m, 2) for r, m in p["masks"].items()}
            me = p["proposer"]
            assert sc.utility(me, masks[me]) >= sc.utility(me, sc.initial[me])
        utils = res.record["utilities"]
        for role in sc.roles:
            assert utils[role] >= float(sc.utility(role, sc.initial[role]))


async def test_cooperative_code_agents_reach_the_front() -> None:
    res = await play(build_protocol("cooperative", {}), [UtilityAwareAgent(),
                                                         UtilityAwareAgent()], 0)
    assert res.record["status"] == "agreed"
    assert sum(res.record["utilities"].values()) >= 1.88


async def test_rejected_splits_are_remembered_and_not_repeated() -> None:
    agent = UtilityAwareAgent()
    res = await play(build_protocol("competitive", {}),
                     [agent, ScriptedAgent(then="keep")], 0)
    mine = [p for p in res.record["proposals"] if p["proposer"] == "Alice"]
    keys = [p["masks"]["Alice"] for p in mine]
    assert len(keys) == len(set(keys))  # every proposal was new after each rejection
    assert {int(k, 2) for k in keys[:-1]} <= agent._rejected


async def test_partner_model_learns_from_proposals() -> None:
    agent = UtilityAwareAgent()
    await play(build_protocol("cooperative", {}), [agent, ScriptedAgent(then="keep")], 0)
    # Bob kept proposing his original task 000111: those bits look valuable to him
    w = agent._w
    assert min(w[i] for i in (0, 1, 2)) > max(w[i] for i in (3, 4, 5))


def test_selfish_ignores_partner() -> None:
    a = selfish_agent()
    assert a.name == "selfish" and a.partner_model is False


def test_parse_script_and_specs() -> None:
    assert parse_script("OVL*2+ok") == ["OVL", "OVL", "ok"]
    assert parse_script("overlap,empty_agent") == ["OVL", "EMP"]
    with pytest.raises(ValueError, match="unknown script step 'XYZ'"):
        parse_script("XYZ")
    with pytest.raises(ValueError, match="repeat count"):
        parse_script("OVL*x")
    agent = build_agent("scripted:MDA*2+keep?then=accept")
    assert isinstance(agent, ScriptedAgent) and agent.script == ["MDA", "MDA", "keep"]
    assert agent.then == "accept"
    assert isinstance(build_agent("utility-aware?e=1.5"), UtilityAwareAgent)
    with pytest.raises(ValueError, match=r"unknown task-exchange agent kind 'nobody'; "
                       r"known: .*utility-aware"):
        build_agent("nobody")
    with pytest.raises(ValueError, match=r"agent 'human' needs a person at a seat"):
        build_agent("human")  # a person sits at the terminal or the play page
    with pytest.raises(ValueError, match="unknown option"):
        build_agent("utility-aware?speed=3")
