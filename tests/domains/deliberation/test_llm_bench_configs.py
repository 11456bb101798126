"""The Table 2 / Table 3 bench configs: their layout, and the switch to LLM agents."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from accord.bench import expand, load_config
from accord.domains.base import RunContext
from accord.domains.deliberation import DOMAIN
from accord.domains.deliberation.cli import run_target

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def _cells(path: Path) -> Counter[tuple[str, str, str, bool]]:
    plan = expand(load_config(path))
    return Counter((e.spec.scenario, e.labels["lineup"], e.spec.params["mode"],
                    e.spec.params["tools"]) for e in plan.episodes)


def test_table2_layout() -> None:
    cells = _cells(CONFIGS / "deliberation_table2.yaml")
    settings = ("menu-numeric", "menu-semantic", "task-allocation")
    expected = {(s, m, m, t): 60 for s in settings for m in ("deliberation", "centralized")
                for t in (False, True)}
    assert dict(cells) == expected


def test_table3_layout() -> None:
    cells = _cells(CONFIGS / "deliberation_table3.yaml")
    assert dict(cells) == {("task-allocation", m, m, t): 60 for t in (False, True)
                           for m in ("oracle", "centralized", "deliberation")}


@pytest.mark.parametrize("name", ["deliberation_table2.yaml", "deliberation_table3.yaml"])
def test_switching_the_anchor_to_an_llm_runs_every_cell(name: str, tmp_path: Path) -> None:
    text = (CONFIGS / name).read_text(encoding="utf-8")
    assert text.count("&agent share") == 1  # one place to change
    llm = text.replace("&agent share", '&agent "llm:mock/deliberation?temperature=0.3"')
    path = tmp_path / name
    path.write_text(llm, encoding="utf-8")
    plan = expand(load_config(path))
    seen = set()
    for ep in plan.episodes:  # one episode per cell, through the domain as the runner does
        cell = (ep.spec.scenario, ep.spec.params["mode"], ep.spec.params["tools"])
        if cell in seen or ep.spec.params["instance"] != 0:
            continue
        seen.add(cell)
        assert all(a.kind == "llm" for a in ep.spec.agents)
        res = asyncio.run(DOMAIN.run_episode(ep.spec, RunContext(episode_id=ep.id)))
        assert res.status == "agreement", (cell, res.detail)
        assert res.record["episode_mode"] == ep.spec.params["mode"]
    assert len(seen) == (12 if "table2" in name else 6)


@pytest.mark.parametrize("setting", ["menu-numeric", "menu-semantic"])
def test_shipped_menus_reward_information_sharing(setting: str) -> None:
    # the benchmark's menus are not solvable by guessing: an agent that shares nothing and
    # assumes unseen ingredients suffice for one dish loses clearly to agents that share
    sample = range(0, 60, 3)
    naive = [run_target(setting, i, ["naive", "naive"]) for i in sample]
    share = [run_target(setting, i, ["share", "share"]) for i in sample]
    assert sum(o["nr"] for o in naive) / len(naive) < 75
    assert sum(not o["valid"] for o in naive) >= 3
    assert all(o["valid"] for o in share)
    if setting == "menu-numeric":
        assert all(o["nr"] == pytest.approx(100.0) for o in share)
