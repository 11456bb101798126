"""Prompt variants of the LLM negotiator (issue 29): where the BATNA rule stands, what a
turn shows first, and the bench ``prompts:`` axis that sweeps them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.agents.negotiator_prompts import system_text, turn_text
from accord.agents.spec import AgentSpecError
from accord.bench import ConfigError, expand, parse_config
from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.stub import StubServer

runner = CliRunner()
RULE = "never accept any offer worse than this"


def _system(constraints: str) -> str:
    payload = {"weights": {"price": 1.0}, "values": {"price": {1: 1.0, 2: 0.0}}}
    return system_text("buyer", ["seller"], {"price": [1, 2]}, payload, 0.4, 10,
                       constraints=constraints)


def test_the_batna_rule_stands_where_the_variant_says() -> None:
    both, start, end = _system("both"), _system("start"), _system("end")
    assert both.count(RULE) == 2 and both.splitlines()[1].startswith("Your BATNA is 0.4")
    assert start.count(RULE) == 1 and start.splitlines()[1].startswith("Your BATNA is 0.4")
    assert "REMINDER" not in start
    assert end.count(RULE) == 1 and end.splitlines()[-1].startswith("Your BATNA is 0.4")
    assert "Your BATNA is" not in end.splitlines()[1]
    # the data line (what BATNA means) is in every variant
    assert all("Your BATNA (best alternative" in t for t in (both, start, end))


def test_the_turn_order_variant_puts_messages_first() -> None:
    args: dict[str, Any] = {"round": 2, "max_rounds": 9, "move": "respond",
                            "current": {"price": 1}, "proposer": "seller",
                            "new_offers": [{"round": 2, "party": "seller",
                                            "package": {"price": 1}, "source": "party"}],
                            "messages": ["Round 2: seller says a last word"]}
    first = turn_text(**args).splitlines()
    other = turn_text(**args, order="messages-first").splitlines()
    assert first.index("Offer history since your last turn:") < \
        first.index("Round 2: seller says a last word")
    assert other.index("Round 2: seller says a last word") < \
        other.index("Offer history since your last turn:")
    assert sorted(first) == sorted(other)


def test_the_variant_reaches_the_model_over_http(stub_env: Any) -> None:
    with StubServer() as stub:
        stub_env(stub)
        res = asyncio.run(run_negotiation(
            resolve_scenario("buyer-seller"),
            ["llm:openai-api/stub/negotiator?constraints=end", "boulware"], seed=0))
        system = stub.completion_requests[0].messages[0]["content"]
    assert res.status in ("agreement", "no_deal")  # the stub reads the rule at the end too
    assert system.count(RULE) == 1 and system.rstrip().splitlines()[-1].startswith(
        "Your BATNA is 0.4")


def test_a_bad_variant_is_refused_by_name() -> None:
    with pytest.raises(AgentSpecError, match="constraints must be one of both, start, end"):
        asyncio.run(run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:mock/negotiator?constraints=middle", "boulware"]))


SPEC = """\
name: pv
domain: bargaining
scenarios: [buyer-seller]
agents:
  - name: llm-vs-hard
    agents: [{kind: llm, arg: mock/negotiator, name: model}, boulware]
  - [boulware, conceder]
prompts:
  constraints: [both, start, end]
  order: [offers-first, messages-first]
seeds: 1
"""


def test_the_prompts_axis_crosses_the_llm_line_ups() -> None:
    import yaml

    plan = expand(parse_config(yaml.safe_load(SPEC), "pv.yaml"))
    agents = [tuple(map(str, e.spec.agents)) for e in plan.episodes]
    assert len(agents) == 3 * 2 + 1  # the code line-up once
    assert ("boulware", "conceder") in agents
    llm = sorted(a[0] for a in agents if a[0].startswith("llm"))
    assert llm[0] == "llm:mock/negotiator?constraints=both&order=messages-first"
    names = {e.labels["lineup"] for e in plan.episodes}
    assert "llm-vs-hard [constraints=end,order=offers-first]" in names
    labels = [e.labels["agents"][0] for e in plan.episodes if e.labels["agents"][0] != "boulware"]
    assert "model [constraints=start,order=messages-first]" in labels


def test_a_bad_prompts_axis_names_its_key() -> None:
    import yaml

    bad = yaml.safe_load(SPEC.replace("  order: [offers-first, messages-first]\n", "")
                         .replace("  constraints: [both, start, end]", "  constraints: {}"))
    with pytest.raises(ConfigError, match=r"prompts\.constraints"):
        parse_config(bad, "pv.yaml")


def test_the_shipped_spec_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["bench", "prompt_positions", "--out", str(tmp_path / "p.db"),
                              "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["done"] == 12 and doc["failed"] == 0
