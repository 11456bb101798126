"""Bench configs carry seed 002's stagnation options and the pareto mediator."""

from __future__ import annotations

from accord.bench.config import load_config
from accord.bench.runner import BenchOptions, run_bench
from accord.bench.store import Store


def test_bench_runs_pareto_mediator_and_issue_measure(write_config, tmp_path):
    path = write_config("""\
name: stag
domain: bargaining
scenarios: [split, buyer-seller]
agents:
  - [hardliner, hardliner]
params:
  - {mediator: pareto, stagnation_measure: issues, stagnation_rounds: 2}
  - {mediator: pareto, stagnation_order: mediator-first, stagnation_rounds: 2}
  - {stagnation: "llm:mock/stagnation"}
seeds: 1
""")
    rep = run_bench(load_config(path), BenchOptions(store=tmp_path / "s.db", quiet=True))
    assert (rep.planned, rep.done, rep.failed) == (6, 6, 0)
    with Store.open(tmp_path / "s.db", create=False) as st:
        rows = st.episodes("stag")
        assert all(r.status == "done" for r in rows)
        traj = {(*sorted(r.spec["params"].items()), r.spec["scenario"]):
                st.trajectory("stag", r.id) for r in rows}
    walk_first = [t for k, t in traj.items() if ("stagnation_measure", "issues") in k]
    assert all('"stagnation_walk"' in t and '"mediator_suggestion"' not in t
               for t in walk_first)  # hardliners: somebody is below BATNA, so they walk
    med_first = [t for k, t in traj.items() if ("stagnation_order", "mediator-first") in k]
    assert all('"then": "mediator"' in t for t in med_first)
    scored = [t for k, t in traj.items() if ("stagnation", "llm:mock/stagnation") in k]
    assert all('"verdict": "STAGNANT"' in t for t in scored)
