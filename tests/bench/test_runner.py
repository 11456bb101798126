"""The driver and executors: resume, concurrency bound, failures, retries, timeouts."""

from __future__ import annotations

import math
import os
import time
from typing import Any

import pytest

from accord.bench import (
    BenchOptions,
    Store,
    expand,
    load_config,
    parse_config,
    parse_executor,
    run_bench,
)
from accord.domains import Domain, EpisodeSpec, RunContext, register_domain
from accord.protocols.engine import EpisodeResult
from accord.testing.sleep_domain import SleepDomain


def _run(cfg, tmp_path, **kw):
    opts = BenchOptions(store=tmp_path / "s.db", quiet=True, **kw)
    return run_bench(cfg, opts)


def _rows(tmp_path, run="nap"):
    with Store.open(tmp_path / "s.db", create=False) as st:
        return st.episodes(run)


def test_minimal_spec_runs_and_reruns_skip_finished(write_config, tmp_path):
    path = write_config("""\
name: demo
domain: bargaining
scenarios: [buyer-seller, procurement]
agents:
  - [boulware, conceder]
  - [linear, linear]
seeds: 5
""")
    cfg = load_config(path)
    rep = _run(cfg, tmp_path)
    assert (rep.planned, rep.queued, rep.done, rep.failed) == (20, 20, 20, 0)
    rows = _rows(tmp_path, "demo")
    assert {r.id for r in rows} == {e.id for e in expand(cfg).episodes}
    assert all(r.status == "done" and r.outcome in ("agreement", "no_deal") for r in rows)
    assert all(r.metrics and "agreement" in r.metrics for r in rows)
    with Store.open(tmp_path / "s.db", create=False) as st:
        assert st.trajectory("demo", rows[0].id).count("\n") > 2
        assert st.sessions("demo")[0]["state"] == "finished"
    again = _run(cfg, tmp_path)
    assert (again.already_done, again.queued, again.done) == (20, 0, 0)
    assert all(r.attempts == 1 for r in _rows(tmp_path, "demo"))


def _max_overlap(rows) -> int:
    spans = [(r.finished - r.wall_time, r.finished) for r in rows]
    return max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)


@pytest.mark.parametrize(("n", "c"), [(8, 4), (6, 3)])
def test_n_slow_episodes_at_concurrency_c_take_about_ceil_n_over_c(nap_config, tmp_path,
                                                                   n, c):
    delay = 0.25
    cfg = parse_config(nap_config(n, delay))
    t0 = time.perf_counter()
    rep = _run(cfg, tmp_path, concurrency=c)
    elapsed = time.perf_counter() - t0
    assert rep.done == n
    waves = math.ceil(n / c)
    # never faster than ceil(N/c) episode times (a lower bound: load cannot break it);
    # that episodes really overlap, c at a time, is read from their own records below
    # rather than from an upper bound on wall time, which a loaded machine can exceed
    assert elapsed >= waves * delay * 0.95
    rows = _rows(tmp_path)
    assert _max_overlap(rows) == c  # the bound is reached and never exceeded


def test_failures_keep_their_error_and_retry_failed_reruns_them(nap_config, tmp_path):
    flag = tmp_path / "ok"
    cfg = parse_config(nap_config(4, fail_seeds=[1], fail_unless_exists=str(flag)))
    rep = _run(cfg, tmp_path)
    assert (rep.done, rep.failed) == (0, 4)
    rows = _rows(tmp_path)
    assert all(r.status == "failed" for r in rows)
    assert "RuntimeError: seed 1 is set to fail" in next(r.error for r in rows
                                                         if r.spec["seed"] == 1)
    assert "does not exist yet" in next(r.error for r in rows if r.spec["seed"] == 0)
    assert "Traceback" in rows[0].error
    skip = _run(cfg, tmp_path)  # without --retry-failed nothing runs
    assert (skip.queued, skip.skipped_failed) == (0, 4)
    flag.write_text("")
    retry = _run(cfg, tmp_path, retry_failed=True)
    assert (retry.queued, retry.done, retry.failed) == (4, 3, 1)
    rows = {r.spec["seed"]: r for r in _rows(tmp_path)}
    assert rows[0].status == "done" and rows[0].error is None and rows[0].attempts == 2
    assert rows[1].status == "failed" and rows[1].attempts == 2


def test_retry_errors_reruns_error_outcomes_only_when_asked(nap_config, tmp_path):
    cfg = parse_config(nap_config(2, outcome="error"))
    assert _run(cfg, tmp_path).done == 2
    assert {r.outcome for r in _rows(tmp_path)} == {"error"}
    assert _run(cfg, tmp_path).queued == 0
    assert _run(cfg, tmp_path, retry_errors=True).queued == 2


def test_timeout_turns_a_hung_episode_into_a_failure(nap_config, tmp_path):
    cfg = nap_config(2, delay=5.0)
    cfg["timeout"] = 0.1
    rep = _run(parse_config(cfg), tmp_path)
    assert rep.failed == 2
    assert "exceeded the timeout of 0.1 s" in _rows(tmp_path)[0].error


def test_limit_runs_a_prefix_and_the_rest_stays_pending(nap_config, tmp_path):
    cfg = parse_config(nap_config(5))
    assert _run(cfg, tmp_path, limit=2).done == 2
    assert sorted(r.status for r in _rows(tmp_path)) == ["done"] * 2 + ["pending"] * 3


class _Recorder(Domain):
    """Records the run context it receives (in-process only)."""

    name = "test-recorder"

    def scenarios(self) -> list[str]:
        return ["x"]

    def agent_kinds(self) -> list[str]:
        return ["a"]

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        inner = SleepDomain()
        res = await inner.run_episode(EpisodeSpec("testing-sleep", "nap", (),
                                                  {}, spec.seed), ctx)
        res.record = {"llm": ctx.llm, "episode_id": ctx.episode_id, "data": ctx.data,
                      "extra": ctx.extra}
        return res

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return {"mode": result.record["llm"].get("cache_mode")}


register_domain(_Recorder())


def test_llm_settings_and_episode_id_reach_the_domain(tmp_path):
    cfg = parse_config({"name": "rec", "domain": "test-recorder", "scenarios": ["x"],
                        "agents": [["a"]], "seeds": 1, "repeat": 2,
                        "llm": {"cache": "from-config.db", "cache_mode": "rw"}})
    run_bench(cfg, BenchOptions(store=tmp_path / "s.db", quiet=True,
                                llm={"cache_mode": "replay"}, data="/data"))
    rows = _rows(tmp_path, "rec")
    recs = sorted((r.summary["record"] for r in rows), key=lambda x: x["extra"]["repeat"])
    assert recs[0]["llm"] == {"cache": "from-config.db", "cache_mode": "replay"}
    assert [r["extra"] for r in recs] == [{"run": "rec", "repeat": 0},
                                          {"run": "rec", "repeat": 1}]
    assert {r["episode_id"] for r in recs} == {r.id for r in rows}
    assert recs[0]["data"] == "/data"
    with Store.open(tmp_path / "s.db", create=False) as st:
        run = st.runs()[0]
    assert run["config"]["llm"] == {"cache": "from-config.db", "cache_mode": "replay"}
    assert run["config"]["sweeps"][0]["seeds"] == [0]


def test_process_executor_runs_episodes_in_other_processes(nap_config, tmp_path):
    cfg = parse_config(nap_config(4, spin=0.05))
    rep = _run(cfg, tmp_path, executor="process", concurrency=2)
    assert (rep.done, rep.failed) == (4, 0)
    with Store.open(tmp_path / "s.db", create=False) as st:
        workers = {w for (w,) in st.conn.execute("SELECT worker FROM episodes")}
    pids = {int(w.rsplit(":", 1)[1]) for w in workers}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_executor_addresses_parse():
    assert parse_executor("ray").address is None
    assert parse_executor("ray:auto").address == "auto"
    assert parse_executor("ray:10.0.0.5:6379").address == "10.0.0.5:6379"
    assert parse_executor("ray://head:10001").address == "ray://head:10001"
    assert str(parse_executor("ray://head:10001")) == "ray://head:10001"
    assert parse_executor("process").kind == "process"
    with pytest.raises(ValueError, match="unknown executor"):
        parse_executor("dask")
    with pytest.raises(ValueError, match="needs an address"):
        parse_executor("ray:")


def test_growing_a_sweep_runs_only_the_new_episodes(nap_config, tmp_path):
    assert _run(parse_config(nap_config(2)), tmp_path).done == 2
    grown = _run(parse_config(nap_config(5)), tmp_path)
    assert (grown.already_done, grown.queued, grown.stale) == (2, 3, 0)
    shrunk = _run(parse_config(nap_config(1)), tmp_path)
    assert (shrunk.already_done, shrunk.queued, shrunk.stale) == (1, 0, 4)
    assert len(_rows(tmp_path)) == 5  # nothing is deleted
