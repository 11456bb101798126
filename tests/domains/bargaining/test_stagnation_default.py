"""The stagnation rule's default (issue 23): on for LLM parties, off for code strategies.

Each test runs the real command or the real runner; none reaches the network (the LLM
party is the in-process ``mock/negotiator``).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.domains.bargaining.params import BargainingParams

runner = CliRunner()
README = Path(__file__).resolve().parents[3] / "README.md"


def _run_json(*args: str) -> dict:
    res = runner.invoke(app, ["run", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_boulware_pair_agrees_by_default() -> None:
    """It ended no_deal by stagnation in round 5 under the old default K=3."""
    out = _run_json("bargaining/buyer-seller", "--agents", "boulware,boulware")
    assert out["status"] == "agreement" and out["rounds"] > 5
    assert out["stagnation"]["rounds"] == 0 and out["stagnation"]["rule"] == "auto"
    assert "code strategy" in out["stagnation"]["why"]


@pytest.mark.parametrize("how", [["--stagnation-rounds", "3"],
                                 ["--param", "stagnation_rounds=3"]])
def test_explicit_k_wins_and_the_ending_says_how_to_change_it(how: list[str]) -> None:
    out = _run_json("bargaining/buyer-seller", "--agents", "boulware,boulware", *how)
    assert (out["status"], out["reason"], out["rounds"]) == ("no_deal", "stagnation", 5)
    assert out["stagnation"] == {"rounds": 3, "rule": "explicit", "why": "set explicitly"}
    assert out["detail"].startswith("The stagnation rule ended the episode: nobody conceded")
    assert "--stagnation-rounds 0" in out["detail"] and "stagnation_rounds: 0" in out["detail"]


def test_auto_is_a_value_too() -> None:
    assert BargainingParams.model_validate({"stagnation_rounds": "auto"}).stagnation_rounds \
        is None
    out = _run_json("bargaining/buyer-seller", "--agents", "boulware,boulware",
                    "--param", "stagnation_rounds=auto")
    assert out["status"] == "agreement" and out["stagnation"]["rounds"] == 0


def test_llm_party_keeps_seed_002_k() -> None:
    out = _run_json("bargaining/buyer-seller", "--agents", "llm:mock/negotiator,boulware")
    assert out["stagnation"] == {"rounds": 3, "rule": "auto",
                                 "why": "the default when an LLM party negotiates (seed 002)"}
    explicit = _run_json("bargaining/buyer-seller", "--agents", "llm:mock/negotiator,boulware",
                         "--stagnation-rounds", "0")
    assert explicit["stagnation"]["rounds"] == 0 and explicit["stagnation"]["rule"] == "explicit"


@pytest.mark.parametrize(("params", "k"), [
    ({"mediator": "midpoint"}, 3),  # a mediator acts only when the rule fires
    ({"stagnation": "llm:mock/stagnation"}, 3),
    ({}, 0),
    ({"mediator": "midpoint", "stagnation_rounds": 5}, 5),
])
def test_setting_per_line_up(params: dict, k: int) -> None:
    p = BargainingParams.model_validate(params)
    assert p.stagnation_setting(["boulware", "linear"]).rounds == k
    assert p.protocol_config(p.stagnation_setting(["linear"]).rounds).stagnation_rounds == k


def test_readme_laptop_example_does_not_stop_at_round_5(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"```yaml\n(name: laptop-sale.*?)```", text, re.S)
    assert found and "accord run my-scenario.yaml --agents linear,tit-for-tat --max-rounds 30" \
        in text
    path = tmp_path / "my-scenario.yaml"
    path.write_text(found.group(1), encoding="utf-8")
    out = _run_json(str(path), "--agents", "linear,tit-for-tat", "--max-rounds", "30")
    assert out["status"] == "agreement" and out["rounds"] > 5, out


def test_human_output_says_the_rule_ended_it_in_sentences() -> None:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "boulware,boulware", "--stagnation-rounds", "3"])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "{'rule'" not in res.output and "stagnation_walk" not in res.output
    assert "The stagnation rule fired: nobody conceded more than 1e-09 in utility for 3 " \
        "rounds; a party below its BATNA walks." in flat
    assert "buyer walks: the best offer available to it (0.00) is below its BATNA (0.40)." \
        in flat
    assert "The stagnation rule ended the episode" in flat
    assert "set --stagnation-rounds 0" in flat
    assert "Stagnation rule: K=3, set explicitly" in flat


def test_show_prints_the_stagnation_sentence(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", "boulware,boulware",
                              "--stagnation-rounds", "3", "--save", str(store), "--json"])
    assert res.exit_code == 0, res.output
    eid = json.loads(res.stdout)["stored"]["id"]
    shown = runner.invoke(app, ["show", str(store), eid[:8]])
    assert shown.exit_code == 0, shown.output
    flat = " ".join(shown.output.split())
    assert "The stagnation rule ended the episode" in flat and "--stagnation-rounds 0" in flat
    assert "stagnation.rounds" in flat  # the record's entry: which rule applied


def test_demo_mediator_section_shows_the_mediator_acting() -> None:
    from accord.cli.demo import MEDIATED, bargaining_tour

    console = Console(record=True, width=200)
    bargaining_tour(console)
    text = console.export_text()
    section = text.split("three parties with a mediator")[1]
    assert "mediator suggests" in section and "walks" not in section
    assert "AGREEMENT" in section
    sprint = resolve_scenario("sprint-planning")
    res = asyncio.run(run_negotiation(sprint, ["boulware"] * 3, params=MEDIATED, seed=0))
    assert res.status == "agreement"
    assert any(e.reason == "mediator_suggestion" for e in res.trajectory)
