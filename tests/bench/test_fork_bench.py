"""A bench spec that forks stored episodes (``fork: {from, at}``, issue 29): one study
over a set of parents, forks stored with their parent, the same agents reproducing it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench import ConfigError, load_config
from accord.bench.store import Store
from accord.cli.main import app

runner = CliRunner()


def _parents(tmp_path: Path) -> Path:
    db = tmp_path / "parents.db"
    for agents in ("boulware,random", "boulware,conceder"):
        res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", agents,
                                  "--save", str(db), "-q"])
        assert res.exit_code == 0, res.output
    return db


def _moves(text: str) -> list[tuple[object, ...]]:
    return [(e["party"], e["round"], json.dumps(e["move"], sort_keys=True))
            for e in map(json.loads, text.splitlines()) if e["kind"] == "move"]


def test_a_fork_sweep_forks_every_parent_at_every_round(tmp_path: Path) -> None:
    parents = _parents(tmp_path)
    spec = tmp_path / "fk.yaml"
    spec.write_text(f"name: fk\ndomain: bargaining\nagents:\n  - [boulware, conceder]\n"
                    f"  - [conceder, conceder]\nfork: {{from: {parents}, at: [2, 3]}}\n")
    out = tmp_path / "fk.db"
    res = runner.invoke(app, ["bench", str(spec), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["planned"] == 2 * 2 * 2 and doc["done"] == 8 and doc["failed"] == 0
    with Store.open_readonly(parents) as st:
        by_agents = {tuple(r.spec["agents"]): (r, st.trajectory(r.run, r.id))
                     for r in st.episodes()}
    with Store.open_readonly(out) as st:
        forks = [(r, st.trajectory(r.run, r.id)) for r in st.episodes()]
    for row, text in forks:
        info = row.spec["fork"]
        parent, ptext = next(v for v in by_agents.values() if v[0].id == info["parent"])
        assert info["at"] in (2, 3) and row.labels["parent"] == parent.id
        assert row.spec["scenario"] == "buyer-seller" and row.spec["seed"] == parent.spec["seed"]
        assert text is not None and ptext is not None
        mine, theirs = _moves(text), _moves(ptext)
        assert [m for m in mine if m[1] < info["at"]] == [m for m in theirs
                                                          if m[1] < info["at"]]
        if row.spec["agents"] == parent.spec["agents"]:  # the same agents: the parent again
            assert mine == theirs and info["changes"] == {}
    # a second run finds every fork done
    again = runner.invoke(app, ["bench", str(spec), "--out", str(out), "--json"])
    assert json.loads(again.stdout)["queued"] == 0
    # the comparison finds the parents in the source store
    res = runner.invoke(app, ["results", str(out), "--forks", "--json"])
    groups = json.loads(res.stdout)["forks"]
    assert len(groups) == 2 and all(g["rows"][0]["episode"] == "parent" for g in groups)


def test_prompt_variants_over_forks(tmp_path: Path) -> None:
    parents = _parents(tmp_path)
    spec = tmp_path / "pv.yaml"
    spec.write_text(f"name: pv\ndomain: bargaining\nagents:\n  - [llm:mock/negotiator, "
                    f"conceder]\nprompts: {{constraints: [start, end]}}\n"
                    f"fork: {{from: {parents}, at: 3}}\n")
    res = runner.invoke(app, ["bench", str(spec), "--out", str(tmp_path / "pv.db"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["done"] == 2 * 2
    with Store.open_readonly(tmp_path / "pv.db") as st:
        rows = st.episodes()
    assert {r.spec["agents"][0] for r in rows} == {"llm:mock/negotiator?constraints=start",
                                                   "llm:mock/negotiator?constraints=end"}
    assert all(r.spec["fork"]["changes"]["agents"]["1"].startswith("llm:mock") for r in rows)


@pytest.mark.parametrize(("block", "problem"), [
    ("{at: 2}", "fork.from: expected the path of a results store"),
    ("{from: x.db, at: 0}", "fork.at: expected a round"),
    ("{from: x.db, at: 2, when: now}", "fork.when: unknown key"),
])
def test_bad_fork_blocks_name_their_key(tmp_path: Path, block: str, problem: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(f"name: bad\ndomain: bargaining\nagents: [[boulware, conceder]]\n"
                    f"fork: {block}\n")
    with pytest.raises(ConfigError, match=problem):
        load_config(spec)


def test_a_missing_source_store_is_a_config_error(tmp_path: Path) -> None:
    spec = tmp_path / "gone.yaml"
    spec.write_text(f"name: gone\ndomain: bargaining\nagents: [[boulware, conceder]]\n"
                    f"fork: {{from: {tmp_path / 'nothing.db'}, at: 2}}\n")
    res = runner.invoke(app, ["bench", str(spec), "--out", str(tmp_path / "o.db")])
    assert res.exit_code == 2 and "fork.from" in res.output
