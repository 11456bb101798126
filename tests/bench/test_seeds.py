"""Seeds that mean something (issue 23): bench notes cells of deterministic agents, and
the shipped showcase specs neither sink concession agents with the stagnation rule nor
lack a stochastic agent."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord import configs
from accord.agents.registry import MEDIATORS, NEGOTIATORS
from accord.agents.spec import parse_agent_spec
from accord.bench.config import load_config
from accord.bench.runner import BenchOptions, run_bench
from accord.bench.seeds import seed_warnings
from accord.bench.store import Store
from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario, run_negotiation

runner = CliRunner()


def test_kinds_declare_whether_they_are_stochastic() -> None:
    for kind in ("boulware", "linear", "conceder", "tit-for-tat", "hardliner"):
        assert NEGOTIATORS.stochastic(parse_agent_spec(kind)) is False, kind
    assert NEGOTIATORS.stochastic(parse_agent_spec("random")) is True
    assert NEGOTIATORS.stochastic(parse_agent_spec("human")) is None
    assert NEGOTIATORS.stochastic(parse_agent_spec("llm:openai/gpt-4.1-mini")) is True
    assert NEGOTIATORS.stochastic(parse_agent_spec("llm:openai/gpt-4.1-mini?temperature=0")) \
        is None
    # the in-process mock model is a rule-based function of its prompt, at any temperature
    assert NEGOTIATORS.stochastic(parse_agent_spec("llm:mock/negotiator?temperature=1")) \
        is False
    assert MEDIATORS.stochastic(parse_agent_spec("pareto")) is False


def test_deterministic_declaration_holds_for_the_concession_strategies() -> None:
    """What the registry declares is what happens: two seeds, the same episode."""
    sc = resolve_scenario("procurement")
    for pair in (["boulware", "tit-for-tat"], ["linear", "conceder"]):
        a, b = (asyncio.run(run_negotiation(sc, pair, seed=s)).record for s in (0, 1))
        assert a == b, pair
    mock = ["llm:mock/negotiator?temperature=1", "boulware"]
    a, b = (asyncio.run(run_negotiation(sc, mock, seed=s)).record for s in (0, 1))
    assert a == b
    seen = {json.dumps(asyncio.run(run_negotiation(sc, ["random", "linear"], seed=s)).record,
                       sort_keys=True) for s in range(5)}
    assert len(seen) > 1  # random is declared stochastic: its seeds give other episodes


SPEC = """\
name: seeds
domain: bargaining
scenarios: [split, buyer-seller]
agents:
  - [boulware, conceder]
  - [linear, random]
params:
  - {}
  - {mediator: "llm:openai/gpt-4.1-mini"}  # sampled: not deterministic (never run here)
seeds: 3
"""


def test_warning_names_the_deterministic_cells(write_config) -> None:
    lines = seed_warnings(load_config(write_config(SPEC)))
    assert len(lines) == 1
    assert lines[0].startswith("2 of 8 cells have only deterministic agents (boulware vs "
                               "conceder) and run 3 times each (3 seeds)")
    one_seed = SPEC.replace("seeds: 3", "seeds: 1")
    assert seed_warnings(load_config(write_config(one_seed, "one.yaml"))) == []


def test_bench_warns_on_stderr_and_in_its_json(write_config, tmp_path: Path) -> None:
    path = write_config(SPEC.split("params:")[0] + "seeds: 3\n")  # runnable offline
    res = runner.invoke(app, ["bench", str(path), "--out", str(tmp_path / "s.db"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert len(doc["warnings"]) == 1 and "boulware vs conceder" in doc["warnings"][0]
    assert "only deterministic agents" in res.stderr
    dry = runner.invoke(app, ["bench", str(path), "--out", str(tmp_path / "d.db"), "--json",
                              "--dry-run"])
    assert dry.exit_code == 0 and json.loads(dry.stdout)["warnings"] == doc["warnings"]


def _shipped(name: str, seeds: int, write_config) -> Path:
    data = yaml.safe_load(configs.resolve(name).read_text(encoding="utf-8"))
    data["seeds"] = seeds  # fewer seeds keep CI short; the cells are the shipped ones
    return write_config(data, f"{name}.yaml")


@pytest.mark.parametrize(("name", "seeds"), [("tournament", 2), ("demo", 2)])
def test_shipped_specs_are_not_sunk_by_the_stagnation_default(name: str, seeds: int,
                                                              write_config,
                                                              tmp_path: Path) -> None:
    cfg = load_config(_shipped(name, seeds, write_config))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", quiet=True))
    assert rep.failed == 0 and rep.done == rep.planned
    kinds = set()
    cells: dict[tuple, list[bool]] = defaultdict(list)
    with Store.open(tmp_path / "s.db", create=False) as st:
        rows = st.episodes(cfg.name)
    for r in rows:
        agents = tuple(a["kind"] if isinstance(a, dict) else str(a).split(":")[0]
                       for a in r.spec["agents"])
        kinds.update(agents)
        assert r.summary is not None
        assert r.summary["reason"] != "stagnation", (r.spec, r.summary["detail"])
        assert r.summary["record"]["stagnation"]["rounds"] == 0
        cells[(r.spec["scenario"], agents)].append(r.summary["status"] == "agreement")
    assert "random" in kinds  # a stochastic agent, so the table shows real spread
    for (scenario, agents), agreed in cells.items():
        if not any(agreed):  # a 0% cell must not be one that agrees with the rule off
            res = asyncio.run(run_negotiation(resolve_scenario(scenario), list(agents),
                                              params={"stagnation_rounds": 0}, seed=0))
            assert res.status != "agreement", (scenario, agents)
    if name == "demo":
        assert rep.warnings == ()  # every demo line-up has a stochastic party
