"""Model hygiene (V15): a mediator, judge, scorer or leak judge on a party's model is named."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.agents.hygiene import same_model_map, same_model_roles
from accord.cli.main import app


def test_roles_on_a_party_model_are_named() -> None:
    agents = ["llm:mock/negotiator?guard_judge=mock/negotiator", "boulware"]
    params = {"judge": "llm:mock/negotiator", "mediator": "llm:mock/other",
              "stagnation": "llm:mock/negotiator"}
    lines = same_model_roles(agents, params)
    assert [line.split(" runs on ")[0] for line in lines] == [
        "the judge", "the stagnation", "the leak judge"]
    assert all("party 1" in line and "V15" in line for line in lines)
    assert same_model_roles(["boulware", "conceder"], {"judge": "llm:mock/x"}) == []
    assert same_model_roles(["llm:mock/a", "llm:mock/b"], {"judge": "rules"}) == []
    assert same_model_map(agents, params) == {"judge": "mock/negotiator",
                                              "stagnation": "mock/negotiator",
                                              "leak judge": "mock/negotiator"}


def test_run_warns_and_json_carries_it() -> None:
    out = CliRunner().invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                                   "llm:mock/negotiator,boulware", "--judge",
                                   "llm:mock/negotiator", "--max-rounds", "2", "--json"])
    assert out.exit_code in (0, 1), out.output
    doc = json.loads(out.stdout)
    assert doc["warnings"] == [
        "the judge runs on mock/negotiator, the model of party 1; seed 002 advises a "
        "different model for it (V15)"]
    assert "The judge runs on mock/negotiator" in out.stderr
    assert doc["flags"]["same_model"] == {"judge": "mock/negotiator"}  # on the record


def test_the_flag_is_on_every_stored_episode_of_the_run(tmp_path: Path) -> None:
    from accord.bench import Store

    spec = tmp_path / "spec.yaml"
    spec.write_text("name: hyg\ndomain: bargaining\nscenarios: [buyer-seller]\n"
                    "agents: [[llm:mock/negotiator, boulware], [boulware, conceder]]\n"
                    "params: {max_rounds: 2, mediator: llm:mock/negotiator}\nseeds: 1\n")
    store = tmp_path / "s.db"
    out = CliRunner().invoke(app, ["bench", str(spec), "--out", str(store), "--json"])
    assert out.exit_code == 0, out.output
    with Store.open(store, create=False) as st:
        flags = {tuple(e.spec["agents"]): (e.summary or {})["flags"].get("same_model")
                 for e in st.episodes("hyg")}
    assert flags == {("llm:mock/negotiator", "boulware"): {"mediator": "mock/negotiator"},
                     ("boulware", "conceder"): None}


def test_bench_warns_before_the_run(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: hyg\nsweeps:\n  - domain: bargaining\n    scenarios: [buyer-seller]\n"
                    "    agents: [[llm:mock/negotiator, boulware]]\n"
                    "    params: {max_rounds: 2, mediator: llm:mock/negotiator}\n    seeds: 1\n")
    out = CliRunner().invoke(app, ["bench", str(spec), "--out", str(tmp_path / "s.db"),
                                   "--dry-run", "--json"])
    assert out.exit_code == 0, out.output
    assert any("the mediator runs on mock/negotiator" in w
               for w in json.loads(out.stdout)["warnings"])
