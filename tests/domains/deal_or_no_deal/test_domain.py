"""The deal-or-no-deal Domain plug-in: registration, validation, episodes, metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

import accord.domains.deal_or_no_deal  # noqa: F401  (registers the domain)
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext, get_domain


def spec(scenario: str = "test/0", agents: tuple[str, ...] = ("workflow", "workflow"),
         **params: object) -> EpisodeSpec:
    return EpisodeSpec("deal-or-no-deal", scenario,
                       tuple(parse_agent_spec(a) for a in agents), params)


def test_registered_with_agent_kinds() -> None:
    dom = get_domain("deal-or-no-deal")
    assert dom.agent_kinds() == ["dataset-human", "greedy", "human", "llm", "llm-workflow",
                                "workflow"]


@pytest.mark.parametrize("bad,exc,needle", [
    (spec("train/3"), ValueError, "test/<n> or val/<n>"),
    (spec("test/L0"), ValueError, "test/L<line>"),
    (spec(rounds=0), ValueError, "'rounds': input should be greater than or equal to 1, got 0"),
    (spec(rounds="5"), ValueError, "'rounds': input should be a valid integer, got '5'"),
    (spec(colour="red"), ValueError, "unknown deal-or-no-deal parameter 'colour'"),
    (spec(first="carol"), ValueError, "'first': input should be 'alice', 'bob' or 'data', "
     "got 'carol'"),
    (spec(agents=("workflow",)), ValueError, "needs 2 agents"),
    (spec(agents=("workflow", "boulware")), AgentSpecError, "unknown deal-or-no-deal agent"),
])
def test_validate_reports_problems(bad: EpisodeSpec, exc: type, needle: str) -> None:
    with pytest.raises(exc, match=needle):
        get_domain("deal-or-no-deal").validate(bad)


async def test_run_episode_on_real_data(dond_dir: Path) -> None:
    dom = get_domain("deal-or-no-deal")
    s = spec("test/5", ("workflow", "greedy"), data=str(dond_dir), rounds=10)
    res = await dom.run_episode(s, RunContext())
    m = dom.metrics(s, res)
    assert res.record["scenario"] == "test/5" and m["rounds"] <= 10
    assert set(m) >= {"agreement", "alice", "bob", "pareto_optimal", "envy_free", "total",
                      "best_total", "difficulty", "alice_precision"}
    ctx_res = await dom.run_episode(spec("test/5", ("workflow", "greedy"), rounds=10),
                                    RunContext(data=str(dond_dir)))
    assert ctx_res.record["shares"] == res.record["shares"]
    with pytest.raises(KeyError, match="no datapoint 'test/9999'"):
        await dom.run_episode(spec("test/9999", data=str(dond_dir)), RunContext())
    with pytest.raises(ValueError, match="not among the 3 hardest"):
        await dom.run_episode(spec("test/5", data=str(dond_dir), hardest=3), RunContext())


def test_scenarios_list_ids_when_data_is_found(dond_dir: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_DATA", str(dond_dir))
    ids = get_domain("deal-or-no-deal").scenarios()
    assert len(ids) == 545 and ids[0] == "test/0"


def test_scenarios_empty_without_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_DATA", str(tmp_path))
    assert get_domain("deal-or-no-deal").scenarios() == []


async def test_line_scenarios_take_alice_from_the_input_side(dond_dir: Path) -> None:
    dom = get_domain("deal-or-no-deal")
    dom.validate(spec("test/L7"))
    res = await dom.run_episode(spec("test/L7", ("dataset-human", "greedy"), data=str(dond_dir)),
                                RunContext())
    first = (dond_dir / "test.txt").read_text(encoding="utf-8").splitlines()[6]
    you = [int(x) for x in first.split("</input>")[0].split()[1:]][1::2]
    assert res.record["scenario"] == "test/L7" and res.record["values"]["alice"] == you
    # line 2 is not one of the seed's datapoints, so it is not among any hardest
    with pytest.raises(ValueError, match="not among the 50 hardest"):
        await dom.run_episode(spec("test/L2", data=str(dond_dir), hardest=50), RunContext())
    with pytest.raises(KeyError, match="no line 5000"):
        await dom.run_episode(spec("test/L5000", data=str(dond_dir)), RunContext())
