"""Chunks of episodes per Ray task: the sizing and the chunk runner (no Ray needed), then
chunked runs on one shared local Ray instance (skipped when ray is not installed)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from accord.bench import BenchOptions, Store, expand, parse_config, run_bench
from accord.bench.executors import make_executor, parse_executor
from accord.bench.ray_chunks import MAX_CHUNK, MAX_SUBMITTED, ChunkSizer, chunk_plan, run_chunk
from accord.bench.runner import TaskView


def _tasks(cfg: dict) -> TaskView:
    config = parse_config(cfg)
    return TaskView(expand(config).episodes, config, {}, None)


# --- chunk sizes ---------------------------------------------------------------------

def test_adaptive_chunks_probe_then_aim_at_the_target_time():
    sizer = ChunkSizer(lanes=2, target=0.5)
    assert sizer.size() == 2  # nothing measured: one episode per lane
    sizer.observe(2, 0.01)  # 200 episodes/s per task
    assert sizer.size() == 100
    sizer.observe(10, 0.1)  # 100/s: the moving average moves half way
    assert sizer.rate == pytest.approx(150) and sizer.size() == 75
    slow = ChunkSizer(lanes=2, target=0.5)
    slow.observe(2, 20.0)  # LLM-like episodes of 10 s: never below one per lane
    assert slow.size() == 2


def test_adaptive_chunks_are_capped_and_shrink_at_the_tail():
    sizer = ChunkSizer(lanes=1, target=0.5)
    sizer.observe(1000, 0.001)  # trivially fast episodes
    assert sizer.size() == MAX_CHUNK
    assert sizer.size(remaining=400, tasks=4) == 100  # the tail is spread over the tasks
    assert sizer.size(remaining=3, tasks=4) == 1
    lanes = ChunkSizer(lanes=8)
    lanes.observe(1000, 0.001)
    assert lanes.size(remaining=3, tasks=4) == 8  # a chunk fills its lanes when it can
    sizer.observe(0, 0.0)  # nothing finished: no information, no change
    assert sizer.size() == MAX_CHUNK


def test_a_fixed_chunk_size_is_kept_and_checked():
    sizer = ChunkSizer(lanes=4, fixed=7)
    sizer.observe(1000, 0.001)
    assert sizer.size(remaining=2, tasks=4) == 7
    with pytest.raises(ValueError, match="at least 1"):
        ChunkSizer(fixed=0)
    with pytest.raises(ValueError, match="lanes"):
        ChunkSizer(lanes=0)


def test_chunk_plan_bounds_the_drivers_work_and_memory_as_the_cluster_grows():
    sizer, in_flight, flush = chunk_plan(slots=2, lanes=1)
    assert (in_flight, sizer.target, flush, sizer.max_chunk) == (4, 0.5, 0.25, MAX_CHUNK)
    big, in_flight, flush = chunk_plan(slots=1600, lanes=1)
    assert in_flight == 3200 and big.target == pytest.approx(32.0) and flush == 16.0
    big.observe(1000, 0.001)  # millisecond episodes: memory, not time, bounds the chunk
    assert big.size() * in_flight <= MAX_SUBMITTED
    llm, _, _ = chunk_plan(slots=1600, lanes=40)
    assert llm.size() == 40 and llm.max_chunk >= 40  # a chunk always fills its lanes
    fixed, _, _ = chunk_plan(slots=2, lanes=1, fixed=64)
    assert fixed.size(remaining=3) == 64


def test_executor_chunk_option():
    assert parse_executor("ray?chunk=32").chunk == 32
    assert parse_executor("ray?chunk=auto").chunk is None
    choice = parse_executor("ray:auto?cpus=0.5&chunk=8")
    assert (choice.address, choice.cpus, choice.chunk) == ("auto", 0.5, 8)
    assert str(choice) == "ray:auto?cpus=0.5&chunk=8"
    assert parse_executor(str(choice)) == choice
    assert str(parse_executor("ray?chunk=4")) == "ray?chunk=4"
    for bad in ("ray?chunk=0", "ray?chunk=-2", "ray?chunk=1.5", "ray?chunk=", "ray?chunk=x"):
        with pytest.raises(ValueError, match=r"\?chunk=N with N >= 1"):
            parse_executor(bad)
    with pytest.raises(ValueError, match=r"the options are \?cpus=F .* \?chunk=N"):
        parse_executor("ray?cpus=1&chunks=4")
    with pytest.raises(ValueError, match="unknown executor 'rayon'"):
        parse_executor("rayon?chunk=4")
    ex = make_executor("ray?chunk=16", 8)
    assert ex.chunk == 16 and ex.concurrency == 8  # type: ignore[attr-defined]


# --- the chunk runner (in this process) ------------------------------------------------

def test_a_chunk_yields_every_record_once_and_keeps_the_failing_ones_mates(nap_config):
    tasks = list(_tasks(nap_config(7, fail_seeds=[3])))
    groups = list(run_chunk(tasks, lanes=2, flush=60.0))
    assert len(groups) == 1  # all finished before the first flush was due
    records = groups[0]
    assert sorted(r.id for r in records) == sorted(t.id for t in tasks)
    by_seed = {t.spec.seed: r for t in tasks for r in records if r.id == t.id}
    assert by_seed[3].status == "failed" and "seed 3 is set to fail" in (by_seed[3].error or "")
    assert {s for s, r in by_seed.items() if r.status == "done"} == {0, 1, 2, 4, 5, 6}


def test_a_chunk_streams_its_records_in_groups(nap_config):
    """Episodes of 0.1 s with a 0.15 s flush: records arrive while the chunk runs,
    several per group (one message per group, not per episode)."""
    tasks = list(_tasks(nap_config(8, delay=0.1)))
    arrived: list[tuple[float, int]] = []
    t0 = time.monotonic()
    for group in run_chunk(tasks, lanes=1, flush=0.15):
        arrived.append((time.monotonic() - t0, len(group)))
    assert sum(n for _, n in arrived) == 8
    assert 2 <= len(arrived) < 8
    assert arrived[0][0] < arrived[-1][0]  # the first group came before the chunk ended


def test_a_chunk_runs_its_lanes_concurrently(nap_config):
    tasks = list(_tasks(nap_config(4, delay=0.2)))
    [records] = list(run_chunk(tasks, lanes=4, flush=60.0))
    starts = sorted(r.started for r in records)
    assert starts[-1] - starts[0] < 0.15  # all four started before the first one ended


# --- chunked runs on Ray -------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance with 2 CPUs for this module's Ray tests (Ray is slow to
    start); the executor joins it instead of starting its own."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install "
                              "'accord[ray]'); the Ray executor is not tested")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="warning")
    yield ray
    ray.shutdown()


def _stored(path: Path) -> dict[str, tuple]:
    """What an episode's record holds, by id, without timings and worker names."""
    with Store.open(path, create=False) as st:
        rows = st.episodes()
        for r in rows:
            assert r.summary is not None and r.summary.pop("wall_time") > 0
        return {r.id: (r.status, r.outcome, r.summary, r.metrics, r.usage, r.error,
                       st.trajectory(r.run, r.id)) for r in rows}


def _no_times(trajectory: str | None) -> list[dict]:
    events = [json.loads(line) for line in (trajectory or "").splitlines()]
    for event in events:
        event.pop("t", None)
    return events


def test_chunked_ray_run_stores_the_same_records_as_the_local_executor(ray_instance,
                                                                        tmp_path):
    pool = ["boulware", "linear", "conceder", "tit-for-tat"]
    cfg = parse_config({"name": "code", "domain": "bargaining",
                        "scenarios": ["buyer-seller", "procurement"],
                        "agents": {"product": [pool, pool]}, "seeds": 1})
    local = run_bench(cfg, BenchOptions(store=tmp_path / "local.db", executor="local",
                                        quiet=True))
    chunked = run_bench(cfg, BenchOptions(store=tmp_path / "ray.db", executor="ray?chunk=5",
                                          concurrency=2, quiet=True))
    assert ray_instance.is_initialized()  # joined, not started and stopped
    assert (local.done, local.failed) == (chunked.done, chunked.failed) == (32, 0)
    a, b = _stored(tmp_path / "local.db"), _stored(tmp_path / "ray.db")
    assert a.keys() == b.keys() and len(a) == 32
    for key in a:
        assert a[key][:-1] == b[key][:-1], key
        assert _no_times(a[key][-1]) == _no_times(b[key][-1]), key
        assert len(_no_times(a[key][-1])) > 2  # a real negotiation was recorded


def test_a_failing_episode_in_a_ray_chunk_is_recorded_and_its_mates_kept(ray_instance,
                                                                         nap_config, tmp_path):
    cfg = parse_config(nap_config(9, delay=0.02, fail_seeds=[1, 7]))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "f.db", executor="ray?chunk=3",
                                      concurrency=2, quiet=True))
    assert (rep.done, rep.failed) == (7, 2)
    with Store.open(tmp_path / "f.db", create=False) as st:
        rows = {r.spec["seed"]: r for r in st.episodes("nap")}
        workers = {w for (w,) in st.conn.execute("SELECT worker FROM episodes")}
    assert {s for s, r in rows.items() if r.status == "failed"} == {1, 7}
    assert "seed 7 is set to fail" in (rows[7].error or "")
    assert all(r.metrics == {"value": s % 3, "even": s % 2 == 0, "delay": 0.02,
                             "parity": "even" if s % 2 == 0 else "odd"}
               for s, r in rows.items() if s not in (1, 7))
    assert os.getpid() not in {int(w.rsplit(":", 1)[1]) for w in workers}


def test_a_killed_ray_worker_loses_none_of_its_chunk(ray_instance, nap_config, tmp_path):
    """SIGKILL the Ray worker in the middle of a 6-episode chunk: the records it sent are
    kept, the episodes it had not reported run again one per task, and every episode
    ends ``done`` and stored once."""
    pids = tmp_path / "pids"
    pids.mkdir()
    cfg = parse_config(nap_config(6, delay=0.3, pid_dir=str(pids)))
    killed: list[int] = []

    def kill_the_first_worker() -> None:
        end = time.monotonic() + 120
        while not any(pids.iterdir()) and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(0.75)  # two episodes reported, the third running
        for entry in pids.iterdir():
            pid = int(entry.name)
            if pid != os.getpid():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            return

    killer = threading.Thread(target=kill_the_first_worker, daemon=True)
    killer.start()
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "k.db", executor="ray?chunk=6",
                                      concurrency=1, quiet=True))
    killer.join(10)
    assert killed, "no Ray worker was killed"
    assert (rep.done, rep.failed) == (6, 0)
    with Store.open(tmp_path / "k.db", create=False) as st:
        rows = st.episodes("nap")
        workers = [int(w.rsplit(":", 1)[1]) for (w,) in st.conn.execute(
            "SELECT worker FROM episodes")]
    assert {r.status for r in rows} == {"done"} and {r.attempts for r in rows} == {1}
    assert 1 <= workers.count(killed[0]) < 6  # what the killed worker had sent is kept
    assert len(set(workers)) >= 2  # the rest ran again in another worker
