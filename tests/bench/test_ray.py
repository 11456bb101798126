"""The Ray executor against a local Ray instance (skipped when ray is not installed)."""

from __future__ import annotations

import os

import pytest

from accord.bench import BenchOptions, Store, parse_config, run_bench

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'accord[ray]'); "
                          "the Ray executor is not tested")


def test_ray_executor_on_a_local_instance(nap_config, tmp_path):
    """One Ray start (slow): tasks run in Ray workers, failures become failed episodes,
    and the executor shuts down the instance it started."""
    assert not ray.is_initialized()
    cfg = parse_config(nap_config(6, delay=0.05, tokens=10, fail_seeds=[2]))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", executor="ray", quiet=True))
    assert (rep.done, rep.failed) == (5, 1)
    assert not ray.is_initialized()
    with Store.open(tmp_path / "s.db", create=False) as st:
        rows = {r.spec["seed"]: r for r in st.episodes("nap")}
        session = st.sessions("nap")[0]
        workers = {w for (w,) in st.conn.execute("SELECT worker FROM episodes")}
    assert "seed 2 is set to fail" in rows[2].error
    assert rows[0].usage == {"agent0": {"input_tokens": 10, "output_tokens": 5},
                             "agent1": {"input_tokens": 10, "output_tokens": 5}}
    assert session["executor"] == "ray" and session["concurrency"] >= 1
    assert os.getpid() not in {int(w.rsplit(":", 1)[1]) for w in workers}
