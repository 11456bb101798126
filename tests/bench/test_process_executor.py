"""The process executor: one pool per run, sized to the work, batched, importing little."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accord.bench import BenchOptions, Store, parse_config, run_bench
from accord.bench.executors import ProcessExecutor, batch_size, pool_size, worker_modules
from accord.bench.worker import EpisodeTask, execute_batch
from accord.domains import EpisodeSpec, domain_module
from accord.testing.sleep_domain import SleepDomain

SLEEP = "accord.testing.sleep_domain"


def test_pool_size_is_capped_by_concurrency_cpus_and_episodes() -> None:
    assert pool_size(32, 20, cpus=2) == 2
    assert pool_size(32, 1, cpus=8) == 1
    assert pool_size(3, 100, cpus=8) == 3
    assert pool_size(4, 0, cpus=4) == 1


def test_batches_are_small_for_small_runs_and_capped_for_large_ones() -> None:
    assert batch_size(20, 2) == 2
    assert batch_size(3, 2) == 1
    assert batch_size(10_000, 2) == 16
    assert batch_size(10_000, 64) == 16


def test_worker_modules_name_only_what_the_tasks_need() -> None:
    bargain = EpisodeSpec("bargaining", "split", (), {}, 0)
    nap = EpisodeSpec("testing-sleep", "nap", (), {}, 0)
    tasks = [EpisodeTask("a", bargain), EpisodeTask("b", nap, plugins=(SLEEP,)),
             EpisodeTask("c", bargain)]
    assert worker_modules(tasks) == ("accord.domains.bargaining", SLEEP)
    assert domain_module("games") == "accord.domains.games"
    assert domain_module("testing-sleep") is None


def test_execute_batch_keeps_task_order() -> None:
    tasks = [EpisodeTask(f"e{i}", EpisodeSpec("testing-sleep", "nap", (), {"delay": d}, i),
                         plugins=(SLEEP,)) for i, d in enumerate([0.05, 0.0, 0.02])]
    recs = execute_batch(tasks, concurrency=3)
    assert [r.id for r in recs] == ["e0", "e1", "e2"]
    assert {r.status for r in recs} == {"done"}


def test_getting_one_domain_imports_no_other_domain() -> None:
    code = ("import sys, json; from accord.domains import get_domain; "
            "get_domain('bargaining'); print(json.dumps(sorted(m for m in sys.modules "
            "if m.startswith('accord.domains.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = json.loads(out)
    assert "accord.domains.bargaining" in loaded
    for other in ("games", "deal_or_no_deal", "task_exchange", "deliberation"):
        assert not any(m.startswith(f"accord.domains.{other}") for m in loaded), other


def _nap(n: int, **params: object) -> dict:
    fixed = {k: [v] if isinstance(v, list) else v for k, v in params.items()}  # not a sweep
    return {"name": "nap", "plugins": [SLEEP], "domain": "testing-sleep", "scenarios": ["nap"],
            "agents": [["sleeper", "sleeper"]], "params": fixed, "seeds": n}


def _workers(db: Path) -> set[int]:
    with Store.open(db, create=False) as st:
        return {int(w.rsplit(":", 1)[1])
                for (w,) in st.conn.execute("SELECT worker FROM episodes")}


def test_one_pool_per_run_sized_to_the_episodes(tmp_path: Path) -> None:
    cfg = parse_config(_nap(3, spin=0.02))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", executor="process",
                                      concurrency=32, quiet=True))
    assert (rep.done, rep.failed) == (3, 0)
    pids = _workers(tmp_path / "s.db")
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= min(3, os.cpu_count() or 1)


def test_a_dead_worker_fails_its_batch_and_the_run_goes_on(tmp_path: Path) -> None:
    cfg = parse_config(_nap(12, crash_seeds=[5]))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", executor="process",
                                      concurrency=2, quiet=True))
    assert rep.done + rep.failed == 12 and rep.failed >= 1 and rep.done >= 1
    with Store.open(tmp_path / "s.db", create=False) as st:
        rows = st.episodes("nap")
    crashed = [r for r in rows if r.spec["seed"] == 5]
    assert crashed[0].status == "failed" and "BrokenProcessPool" in (crashed[0].error or "")
    again = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", executor="process",
                                        concurrency=2, quiet=True, retry_failed=True))
    assert again.queued == rep.failed  # only the failed batch(es) run again


def test_executor_reports_its_pool_size() -> None:
    import asyncio

    tasks = [EpisodeTask(f"e{i}", EpisodeSpec("testing-sleep", "nap", (), {}, i),
                         plugins=(SLEEP,)) for i in range(3)]
    ex = ProcessExecutor(32)

    async def consume() -> list[str]:
        return [rec.id async for rec in ex.run(tasks)]

    assert sorted(asyncio.run(consume())) == ["e0", "e1", "e2"]
    assert ex.workers == min(3, os.cpu_count() or 1) and ex.concurrency == 32


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_exit_when_the_driver_is_killed(tmp_path: Path) -> None:
    store, pids = tmp_path / "k.db", tmp_path / "pids"
    pids.mkdir()
    cfg = _nap(8, delay=60, pid_dir=str(pids))
    code = ("import accord.testing.sleep_domain; from accord.bench import BenchOptions, "
            f"parse_config, run_bench; cfg = parse_config({cfg!r}); "
            f"run_bench(cfg, BenchOptions(store={str(store)!r}, executor='process', "
            "concurrency=2, quiet=True))")
    driver = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    kids: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2:  # both workers are inside an episode
            assert driver.poll() is None, "the driver ended early"
            assert time.monotonic() < deadline, "no episode started in a worker"
            time.sleep(0.1)
        workers = {int(f.name) for f in pids.iterdir()}
        kids = _descendants(driver.pid)
        assert workers <= kids and driver.pid not in workers
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(10)
        deadline = time.monotonic() + 20
        while any(_alive(pid) for pid in kids):
            assert time.monotonic() < deadline, f"workers outlived the driver: {kids}"
            time.sleep(0.1)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for pid in kids:  # started by this test; only if the assertion above failed
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sleep_domain_refuses_to_crash_the_main_process() -> None:
    import asyncio

    from accord.domains import RunContext

    spec = EpisodeSpec("testing-sleep", "nap", (), {"crash_seeds": [0]}, 0)
    with pytest.raises(RuntimeError, match="pool workers only"):
        asyncio.run(SleepDomain().run_episode(spec, RunContext()))
