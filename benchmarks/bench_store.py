"""Issue 16 goal 4 benchmark: the compact results store (format 2) against format 1.

In one run, on the same N bargaining episodes (concession agents on buyer-seller and
procurement, as ``bench_runner.py``; run once, records kept):

* bytes per episode of each format (file size after a WAL checkpoint, and per column);
* ``Store.write`` per episode in each format (wall and CPU, one transaction per episode),
  interleaved over repeats, and the ratio; ``run_bench`` episodes/s into each format;
* reading back: ``Store.episodes`` + every trajectory, per episode;
* ``Store.write`` against its floor (issue 30 goal 5), format 2, CPU per episode, the
  variants alternated round by round: raw ``sqlite3`` executing the same statements with
  the same bytes (pre-encoded, WAL, ``synchronous=NORMAL``) one transaction per episode
  and in batches (the floor of the inserts); the encoding alone (redaction, JSON, zstd),
  before and now (and now with the standard library's json instead of orjson); the
  previous ``Store.write`` / ``write_many`` (the encoding of
  ``accord.testing.legacy_store.legacy_encode``, kept verbatim, into stores made with the
  dictionary accord shipped then, ``store.zdict``, as the "before"); the stored bytes now
  and before (checked to decode to the same values);
  ``Store.write`` (one transaction per episode) and ``Store.write_many`` in batches, each
  also with records packed in pool workers (what the driver of an ``--executor process``
  run does: only the inserts); the ratios to the floors and whether 2x is met;
* ``--process``: the driver's CPU per episode of a whole ``--executor process`` run, its
  pool workers packing the records (now) or the driver encoding them (before);
* ``--million``: a synthetic store of that many episodes (the N real records cycled
  under new episode ids and seeds): write rate, file size, and ``accord results STORE``
  wall time and peak memory (a child process; its max RSS).

The compression dictionary is trained on a different sweep (the three 2-party built-in bargaining
scenarios, five concession strategies, two deadlines, seeds from 1000):
``--train-dict PATH`` regenerates ``src/accord/bench/data/store2.zdict`` (it needs orjson:
both JSON forms are trained). CPU is ``time.process_time`` (every thread of the process).

    python benchmarks/bench_store.py [--episodes 2000] [--repeat 3] [--million 1000000]
    python benchmarks/bench_store.py --floor-only [--episodes 1000] [--repeat 5] [--batch 32]
        [--process]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from _util import machine

from accord.bench import (
    BenchOptions,
    EpisodeRecord,
    EpisodeTask,
    Executor,
    LocalExecutor,
    Plan,
    PlannedEpisode,
    ProcessExecutor,
    Store,
    expand,
    parse_config,
    run_bench,
)
from accord.bench import rows as rows_module
from accord.bench.provenance import provenance
from accord.bench.redact import Redactor
from accord.bench.rows import JSON_ENCODER, RowEncoder
from accord.domains import EpisodeSpec
from accord.domains.ids import episode_id
from accord.testing.legacy_store import (
    LegacyRedactor,
    create_format1_store,
    decoded,
    legacy_encode,
)

POOL = ["boulware", "linear", "conceder", "tit-for-tat"]
TRAIN_POOL = ["boulware", "linear", "conceder", "tit-for-tat", "hardliner"]


def make_plan(n: int, scenarios: list[str] | None = None, pool: list[str] | None = None,
              seed0: int = 0, params: dict[str, Any] | None = None) -> tuple[Plan, Any]:
    """The first ``n`` episodes of a bargaining concession sweep."""
    pool = pool or POOL
    scen = scenarios or ["buyer-seller", "procurement"]
    cells = len(scen) * len(pool) ** 2 * max(1, len((params or {}).get("max_rounds", [1])))
    cfg = parse_config({"name": "bench", "domain": "bargaining", "scenarios": scen,
                        "agents": {"product": [pool, pool]}, "params": params or {},
                        "seeds": {"start": seed0, "count": -(-n // cells)}})
    plan = expand(cfg)
    plan.episodes = plan.episodes[:n]
    return plan, cfg


async def _consume(items: list[EpisodeTask]) -> list[EpisodeRecord]:
    return [rec async for rec in LocalExecutor(8).run(items)]


def records(plan: Plan) -> list[EpisodeRecord]:
    """Run the plan's episodes (no store) and keep the records."""
    return asyncio.run(_consume([EpisodeTask(e.id, e.spec, e.repeat, "bench")
                                 for e in plan.episodes]))


def train_dictionary(path: Path, n: int = 3000, size: int = 16384) -> None:
    """Train the store dictionary on a sweep unlike the benchmark's and write it.

    The samples hold each JSON value in both forms the store writes: orjson's compact text
    (where orjson is installed) and ``json.dumps``'s spaced one (without orjson, and on the
    redaction's path), so either compresses well."""
    import zstandard

    from accord.bench.rows import plain
    from accord.core.redact import json_text

    plan, _ = make_plan(n, ["buyer-seller", "procurement", "split"],
                        TRAIN_POOL, seed0=1000, params={"max_rounds": [10, 30]})
    recs = records(plan)
    samples: list[Any] = []  # what zstandard.train_dictionary takes (bytes here)
    try:
        import orjson
    except ImportError:
        raise SystemExit("--train-dict needs orjson (the compact form is trained too)"
                         ) from None
    for rec in recs:
        for value in (rec.summary, rec.metrics, rec.usage):
            if value is not None:
                samples.append(json_text(value).encode())
                if plain(value):
                    samples.append(orjson.dumps(value))
        if rec.trajectory:
            samples.append(rec.trajectory.encode())
    d = zstandard.train_dictionary(size, samples, level=19)
    path.write_bytes(d.as_bytes())
    print(f"trained a {len(d.as_bytes())} byte dictionary (id {d.dict_id()}) on "
          f"{len(samples)} values of {len(recs)} episodes -> {path}")


Timing = tuple[float, float]


def _clock() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(t0: Timing) -> Timing:
    w, c = _clock()
    return w - t0[0], c - t0[1]


def new_store(path: Path, fmt: int) -> Store:
    """A fresh store of format ``fmt``."""
    if fmt == 1:
        create_format1_store(path)
    st = Store.open(path)
    assert st.format == fmt, (st.format, fmt)
    return st


def write_store(path: Path, fmt: int, plan: Plan, recs: list[EpisodeRecord]
                ) -> tuple[Timing, int]:
    """``Store.write`` of every record into a fresh store; (time, file bytes)."""
    st = new_store(path, fmt)
    sid = st.begin_session("w", {}, None, provenance(), "local", 1)
    st.add_planned("w", plan.episodes)
    t0 = _clock()
    for rec in recs:
        st.write("w", rec, sid)
    elapsed = _since(t0)
    st.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    st.close()
    return elapsed, path.stat().st_size


def before_write_many(st: Store, run: str, recs: list[EpisodeRecord], redactor: Redactor,
                      session: int | None = None) -> None:
    """``Store.write_many`` as it was before this round (``legacy_encode``: each value
    redacted, serialised and compressed on its own; then one transaction), the "before"."""
    rows: list[tuple[Any, ...]] = []
    trajs: list[tuple[Any, ...]] = []
    for rec in recs:
        row, traj = legacy_encode(st, run, rec, session, redactor)
        rows.append(row)
        if traj is not None:
            trajs.append(traj)
    with st.conn:
        if len(rows) == 1:
            st.conn.execute(Store._UPDATE_EPISODE, rows[0])
        else:
            st.conn.executemany(Store._UPDATE_EPISODE, rows)
        if len(trajs) == 1:
            st.conn.execute(Store._PUT_TRAJECTORY, trajs[0])
        elif trajs:
            st.conn.executemany(Store._PUT_TRAJECTORY, trajs)


def _fresh(path: Path, plan: Plan) -> tuple[Store, int]:
    """A new format-2 store at ``path`` with the plan's episodes pending; (store, session)."""
    st = new_store(path, 2)
    sid = st.begin_session("w", {}, None, provenance(), "local", 1)
    st.add_planned("w", plan.episodes)
    return st, sid


def earlier_store(path: Path, plan: Plan) -> tuple[Store, int]:
    """A new format-2 store as the accord before this dictionary made it (with
    ``store.zdict``, the dictionary it shipped), the plan's episodes pending; (store,
    session)."""
    import accord.bench.store as store_module
    from accord.bench.compact import earlier_dictionaries

    current = store_module.shipped_dictionary
    store_module.shipped_dictionary = lambda: earlier_dictionaries()[-1]
    try:
        return _fresh(path, plan)
    finally:
        store_module.shipped_dictionary = current


def floor_figures(work: Path, plan: Plan, recs: list[EpisodeRecord], repeat: int,
                  batch: int) -> None:
    """``Store.write`` per episode against raw sqlite3 writing the same bytes (CPU)."""
    n = len(recs)
    probe, psid = _fresh(work / "probe.db", plan)
    encoded = [probe.encode("w", rec, psid) for rec in recs]  # the bytes every variant writes
    # what readers decode is unchanged (the bytes too where the JSON encoder is json)
    old = [legacy_encode(probe, "w", rec, psid) for rec in recs]
    assert [decoded(probe, *e) for e in encoded] == [decoded(probe, *e) for e in old]
    old_stored = sum(len(v) for row, traj in old for v in (*row[2:6], traj and traj[2])
                     if isinstance(v, bytes | str))
    # and as accord stored them before: the old encoding with the dictionary it shipped
    earlier, _ = earlier_store(work / "earlier.db", plan)
    was = [legacy_encode(earlier, "w", rec, psid) for rec in recs]
    assert [decoded(earlier, *e) for e in was] == [decoded(probe, *e) for e in encoded]
    was_stored = sum(len(v) for row, traj in was for v in (*row[2:6], traj and traj[2])
                     if isinstance(v, bytes | str))
    earlier.close()
    # records as pool workers hand them back: packed for the store (done before timing)
    worker = RowEncoder.from_spec(probe.encoder_spec())
    packed = [replace(rec, packed=(worker.key, worker.pack(rec))) for rec in recs]
    probe.close()
    stored = sum(len(v) for row, traj in encoded for v in (*row[2:6], traj and traj[2])
                 if isinstance(v, bytes | str))

    def raw(st: Store, size: int) -> None:
        conn = st.conn  # a plain sqlite3 connection: WAL, synchronous=NORMAL
        for i in range(0, n, size):
            part = encoded[i:i + size]
            with conn:
                conn.executemany(Store._UPDATE_EPISODE, [row for row, _ in part])
                conn.executemany(Store._PUT_TRAJECTORY, [t for _, t in part if t is not None])

    def encode_only(st: Store, sid: int) -> None:
        for rec in recs:
            st.encode("w", rec, sid)

    def encode_stdlib_json(st: Store, sid: int) -> None:
        fast, rows_module._orjson = rows_module._orjson, None
        try:
            for rec in recs:
                st.encode("w", rec, sid)
        finally:
            rows_module._orjson = fast

    def before_encode(st: Store, sid: int) -> None:
        r = LegacyRedactor()
        for rec in recs:
            legacy_encode(st, "w", rec, sid, r)

    def before(size: int) -> Any:
        def go(st: Store, sid: int) -> None:
            r = LegacyRedactor()
            for i in range(0, n, size):
                before_write_many(st, "w", recs[i:i + size], r, sid)
        return go

    def many(items: list[EpisodeRecord], size: int) -> Any:
        def go(st: Store, sid: int) -> None:
            if size == 1:
                for rec in items:
                    st.write("w", rec, sid)
                return
            for i in range(0, n, size):
                st.write_many("w", items[i:i + size], sid)
        return go

    floor1, floorb = ("raw sqlite3, same bytes, 1 tx/episode (floor)",
                      f"raw sqlite3, same bytes, {batch}/tx (floor)")
    enc_before, enc_now = ("before: encode only", f"encode only (redact + {JSON_ENCODER} + zstd)")
    enc_json = "encode only, stdlib json (no orjson)"
    w1_before, w1, w1_packed = ("before: Store.write, 1 tx/episode", "Store.write, 1 tx/episode",
                                "Store.write, 1 tx/episode, packed in workers")
    wb_before, wb, wb_packed = (f"before: Store.write_many, {batch}/tx",
                                f"Store.write_many, {batch}/tx",
                                f"Store.write_many, {batch}/tx, packed in workers")
    variants: dict[str, Any] = {
        floor1: lambda st, sid: raw(st, 1), floorb: lambda st, sid: raw(st, batch),
        enc_before: before_encode, enc_now: encode_only,
        **({enc_json: encode_stdlib_json} if JSON_ENCODER == "orjson" else {}),
        w1_before: before(1), w1: many(recs, 1), w1_packed: many(packed, 1),
        wb_before: before(batch), wb: many(recs, batch), wb_packed: many(packed, batch),
    }
    got: dict[str, list[float]] = {k: [] for k in variants}
    loads = []
    for r in range(repeat):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for k, name in enumerate(order):
            # "before": the old encoding into a store as the accord before made it
            st, sid = (earlier_store if name.startswith("before") else _fresh)(
                work / f"floor{r}-{k}.db", plan)
            t0 = time.process_time()
            variants[name](st, sid)
            got[name].append((time.process_time() - t0) / n)
            st.close()
        loads.append(os.getloadavg()[0])
    print(f"\nStore.write against raw sqlite3 at the same bytes (format 2, {stored / n:.0f} "
          f"stored bytes per episode; before {was_stored / n:.0f}, the old encoding with this "
          f"dictionary {old_stored / n:.0f}; JSON by {JSON_ENCODER}; CPU "
          f"per episode (time.process_time, all threads), median (min, max) of {repeat} "
          f"rounds, the variants alternated; load {min(loads):.1f}-{max(loads):.1f}):")
    for name, xs in got.items():
        print(f"  {name:52s} {fmt(xs, 'µs', 1e6)}")
    med = {k: statistics.median(v) for k, v in got.items()}

    def verdict(x: float, floor: float) -> str:
        return f"{x / floor:.1f}x ({'meets' if x <= 2 * floor else 'misses'} the 2x goal)"

    print(f"  encode alone: {med[enc_before] * 1e6:.0f} -> {med[enc_now] * 1e6:.0f} µs "
          f"({med[enc_before] / med[enc_now]:.1f}x less CPU; the same decoded values, checked "
          "above)" + (f"; with stdlib json instead of orjson {med[enc_json] * 1e6:.0f} µs"
                      if enc_json in med else ""))
    print(f"  per episode, 1 tx each, against the 1 tx floor: before "
          f"{med[w1_before] / med[floor1]:.1f}x; now {verdict(med[w1], med[floor1])}; "
          f"packed in workers {verdict(med[w1_packed], med[floor1])}")
    print(f"  batched, {batch}/tx, against the {batch}/tx floor: before "
          f"{med[wb_before] / med[floorb]:.1f}x; now {verdict(med[wb], med[floorb])}; "
          f"packed in workers {verdict(med[wb_packed], med[floorb])}")
    low = {k: min(v) for k, v in got.items()}
    print(f"  the same ratios from each variant's fastest round (less disturbed by load): "
          f"1 tx: before {low[w1_before] / low[floor1]:.1f}x, now "
          f"{low[w1] / low[floor1]:.1f}x; {batch}/tx: before "
          f"{low[wb_before] / low[floorb]:.1f}x, now {low[wb] / low[floorb]:.1f}x")
    print("  (packed in workers: the driver's part of a --executor process run, where the "
          "pool workers\n   encode in parallel; the encoding's CPU is then spent there: the "
          "'encode only' line)")


def process_driver(work: Path, cfg: Any, plan: Plan, repeat: int) -> None:
    """The driver's CPU per episode of ``run_bench`` with ``--executor process``, in all
    and inside ``Store.write_many``: the pool workers pack the records (now) against the
    driver encoding them (before), alternated."""
    n = len(plan.episodes)
    packing, write_many = ProcessExecutor.encode_for, Store.write_many
    spent = [0.0]

    def timed(self: Store, *args: Any, **kwargs: Any) -> None:
        t0 = time.process_time()
        write_many(self, *args, **kwargs)
        spent[0] += time.process_time() - t0

    names = ("driver encodes (before)", "workers pack (now)")
    total: dict[str, list[float]] = {k: [] for k in names}
    store: dict[str, list[float]] = {k: [] for k in names}
    loads = []
    Store.write_many = timed  # type: ignore[method-assign]
    try:
        for r in range(repeat):
            for name in (names if r % 2 == 0 else names[::-1]):
                ProcessExecutor.encode_for = (  # type: ignore[method-assign]
                    packing if name.startswith("workers") else Executor.encode_for)
                spent[0] = 0.0
                t0 = time.process_time()  # this process only: the workers are children
                rep = run_bench(cfg, BenchOptions(store=work / f"proc{r}-{name[:3]}.db",
                                                  executor="process", concurrency=2,
                                                  quiet=True), plan)
                total[name].append((time.process_time() - t0) / n)
                store[name].append(spent[0] / n)
                assert rep.done == n, rep
            loads.append(os.getloadavg()[0])
    finally:
        ProcessExecutor.encode_for = packing  # type: ignore[method-assign]
        Store.write_many = write_many  # type: ignore[method-assign]
    print(f"\nrun_bench --executor process (2 workers), the driver's CPU per episode ({n} "
          f"episodes, load {min(loads):.1f}-{max(loads):.1f}):")
    for name in names:
        print(f"  {name:26s} in Store.write_many {fmt(store[name], 'µs', 1e6)}; in all "
              f"{fmt(total[name], 'µs', 1e6)}")
    sb, sn = (statistics.median(store[k]) for k in names)
    tb, tn = (statistics.median(total[k]) for k in names)
    print(f"  the driver's store writing: {sb / sn:.1f}x less CPU; the driver in all: "
          f"{tb / tn:.2f}x less (the rest: plan, dispatch, unpickling the records)")


def column_bytes(path: Path) -> dict[str, float]:
    """Mean stored bytes per episode of each bulky column."""
    st = Store.open(path, create=False)
    n = st.conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
    out = {}
    for col in ("spec", "labels", "summary", "metrics", "usage", "error"):
        out[col] = st.conn.execute(f"SELECT sum(length({col})) FROM episodes"
                                   ).fetchone()[0] or 0
    out["trajectory"] = st.conn.execute("SELECT sum(length(jsonl)) FROM trajectories"
                                        ).fetchone()[0] or 0
    st.close()
    return {k: v / n for k, v in out.items()}


def read_back(path: Path) -> float:
    """Seconds to read every episode and trajectory (and check they decode)."""
    t0 = time.perf_counter()
    with Store.open(path, create=False) as st:
        rows = st.episodes("w")
        for r in rows:
            assert st.trajectory("w", r.id)
    return time.perf_counter() - t0


def fmt(values: list[float], unit: str, scale: float = 1.0, digits: int = 1) -> str:
    """``median (min-max)`` of the samples."""
    v = [x * scale for x in values]
    return (f"{statistics.median(v):.{digits}f} {unit} (min {min(v):.{digits}f}, "
            f"max {max(v):.{digits}f}, n={len(v)})")


def million(path: Path, n: int, plan: Plan, recs: list[EpisodeRecord], repeat: int = 1
            ) -> None:
    """Write a synthetic ``n``-episode store, then time ``accord results`` on it."""
    st = new_store(path, 2)
    sid = st.begin_session("m", {}, None, provenance(), "local", 1)
    base = plan.episodes
    chunk = 10_000
    t_plan = t_write = 0.0
    c_write = 0.0
    for start in range(0, n, chunk):
        eps = []
        for k in range(start, min(n, start + chunk)):
            src = base[k % len(base)]
            spec = EpisodeSpec(src.spec.domain, src.spec.scenario, src.spec.agents,
                               src.spec.params, 100_000 + k)
            eps.append(PlannedEpisode(episode_id(spec, 0), spec, 0, src.labels, k))
        t0 = time.perf_counter()
        st.add_planned("m", eps)
        t_plan += time.perf_counter() - t0
        t1 = _clock()
        for ep in eps:
            st.write("m", replace(recs[ep.seq % len(recs)], id=ep.id), sid)
        w, c = _since(t1)
        t_write += w
        c_write += c
        if start // chunk % 10 == 9:
            print(f"    {start + chunk} written ({(start + chunk) / t_write:.0f} ep/s, load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    st.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    st.close()
    size = path.stat().st_size
    print(f"  {n} episodes: plan insert {t_plan:.1f} s; Store.write {n / t_write:.0f} ep/s "
          f"wall, {c_write / n * 1e6:.0f} µs CPU per episode")
    print(f"  file {size / 1e9:.3f} GB ({size / n:.0f} bytes = {size / n / 1024:.2f} KiB per "
          "episode)")
    for what, extra in (("accord results", []), ("accord results --format md -g agents",
                                                 ["--format", "md", "-g", "agents"])):
        walls, cpu = [], []
        for _ in range(repeat):
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            res = subprocess.run([sys.executable, "-m", "accord", "results", str(path), *extra],
                                 capture_output=True, text=True,
                                 env={**os.environ, "COLUMNS": "200"})
            walls.append(time.perf_counter() - t0)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
            assert res.returncode == 0 and res.stdout, res.stderr[-500:]
        # ru_maxrss of RUSAGE_CHILDREN: the largest child so far (the store writes ran in
        # this process, so the largest child is accord results itself)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"  {what}: wall {fmt(walls, 's', digits=1)}; CPU {fmt(cpu, 's', digits=1)}; "
              f"peak RSS {peak:.0f} MiB")


def main() -> None:
    """Run the measurements and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--million", type=int, default=0, metavar="N",
                    help="also build a synthetic N-episode store (e.g. 1000000)")
    ap.add_argument("--dir", type=Path, default=None, help="where the stores go "
                    "(default: a temporary directory)")
    ap.add_argument("--train-dict", type=Path, default=None, metavar="PATH")
    ap.add_argument("--batch", type=int, default=32, help="episodes per transaction of the "
                    "batched variants (default 32)")
    ap.add_argument("--floor-only", action="store_true",
                    help="only Store.write against raw sqlite3 at the same bytes")
    ap.add_argument("--process", action="store_true", help="with --floor-only: also the "
                    "driver's CPU of a process-executor run, workers packing or not")
    args = ap.parse_args()
    if args.train_dict:
        train_dictionary(args.train_dict)
        return
    print(f"accord store benchmark: {args.episodes} bargaining episodes; {machine()}; "
          f"load {os.getloadavg()[0]:.1f}")
    plan, cfg = make_plan(args.episodes)
    recs = records(plan)
    n = len(recs)
    if args.floor_only:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            floor_figures(Path(tmp), plan, recs, args.repeat, args.batch)
            if args.process:
                process_driver(Path(tmp), cfg, plan, args.repeat)
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
        return
    sizes: dict[int, list[int]] = {1: [], 2: []}
    writes: dict[int, list[Timing]] = {1: [], 2: []}
    benches: dict[int, list[float]] = {1: [], 2: []}
    reads: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        work = Path(tmp)
        for r in range(args.repeat):
            for f in ((1, 2) if r % 2 == 0 else (2, 1)):
                path = work / f"w{r}-{f}.db"
                t, size = write_store(path, f, plan, recs)
                writes[f].append(t)
                sizes[f].append(size)
                reads[f].append(read_back(path))
                bpath = work / f"b{r}-{f}.db"
                if f == 1:
                    create_format1_store(bpath)
                t0 = time.perf_counter()
                rep = run_bench(cfg, BenchOptions(store=bpath, concurrency=8, quiet=True),
                                plan)
                benches[f].append(time.perf_counter() - t0)
                assert rep.done == n
            print(f"  repeat {r + 1}/{args.repeat} (load {os.getloadavg()[0]:.1f})",
                  flush=True)
        cols = {f: column_bytes(work / f"w0-{f}.db") for f in (1, 2)}
        print("\nbytes per episode (file after checkpoint / episodes):")
        for f, label in ((1, "format 1 (JSON text)"), (2, "format 2 (zstd + dictionary)")):
            print(f"  {label:30s}: {statistics.median(sizes[f]) / n:7.0f} B = "
                  f"{statistics.median(sizes[f]) / n / 1024:.2f} KiB")
        print(f"  ratio format 1 / format 2: "
              f"{statistics.median(sizes[1]) / statistics.median(sizes[2]):.1f}x")
        print("  per column, stored bytes (format 1 -> format 2):")
        for col in cols[1]:
            print(f"    {col:10s} {cols[1][col]:7.0f} -> {cols[2][col]:6.0f}")
        print("\nStore.write per episode (one transaction each):")
        for f in (1, 2):
            print(f"  format {f} wall: {fmt([t[0] / n for t in writes[f]], 'µs', 1e6)}; "
                  f"CPU: {fmt([t[1] / n for t in writes[f]], 'µs', 1e6)}")
        ratio = [b[1] / a[1] for a, b in zip(writes[1], writes[2], strict=True)]
        print(f"  CPU format 2 / format 1 (paired by repeat): {fmt(ratio, 'x', digits=2)}")
        print("\nrun_bench episodes/s (concurrency 8, plan + run + store):")
        for f in (1, 2):
            print(f"  format {f}: {fmt([n / t for t in benches[f]], 'ep/s')}")
        print("\nread back every episode and trajectory, per episode:")
        for f in (1, 2):
            print(f"  format {f}: {fmt([t / n for t in reads[f]], 'µs', 1e6)}")
        floor_figures(work, plan, recs, args.repeat, args.batch)
        if args.million:
            print(f"\nsynthetic store of {args.million} episodes (load "
                  f"{os.getloadavg()[0]:.1f}):")
            million(work / "million.db", args.million, plan, recs)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
