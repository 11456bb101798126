"""Issue 15 benchmark: time of ``accord serve`` pages (goal: p95 under 100 ms), in process
and over real HTTP.

Builds, in a temporary folder: a real gated bench run (8 bargaining episodes), a run of
10^5 episodes grown from it (:func:`accord.testing.stores.grow_store`, one executemany),
a run of 10 episodes grown the same way (the baseline: a 10^5 run should open as fast),
and one 200-round bargaining episode (boulware against boulware, stagnation rule off).
Then times each page in one or both modes (``--mode``), ``--repeat`` requests after
warm-up, and prints median, p95 and max per page; every line says its mode:

* ``in-process``: through the ASGI app (Starlette TestClient: routing, SQLite reads,
  templates; no server, no socket). Wall time and the process's CPU time (which load
  from other processes does not inflate): a server-only figure.
* ``http``: the real ``accord serve`` (uvicorn) in a child process on 127.0.0.1 and a
  keep-alive HTTP client (``http.client``) here. Wall time as a person's browser sees it
  (socket, HTTP parsing, the server's event loop) and the server's CPU per request (the
  child's user + system time from ``/proc``, the mean over the requests of a page: the
  clock ticks are too coarse for one request). ``http.client`` sends each request in one
  segment with TCP_NODELAY set; the ~40 ms that small pages once took here beyond the
  server's CPU were the server's (Nagle's algorithm on the connections ``accord serve``
  accepted, a response's body waiting for the client's delayed ACK of its headers), seen
  by curl and by Chromium's ``fetch`` alike, and fixed in ``accord serve`` (issue 28).

And the 10^5 / 10 ratio of the run page per mode. The first request of a filtered or
sorted view scans the run once (JSON fields have no index); the figures are for the views
as a person pages through them.

With ``--clients`` (over HTTP), the 10-episode run page is also timed through ``curl`` and
a headless Chromium's ``fetch``, to tell a server's delay from a client's.

    python benchmarks/bench_serve.py [--repeat 60] [--episodes 100000] [--mode both]
                                     [--clients]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _util import machine


def _build(tmp: Path, n: int) -> dict[str, Any]:
    from accord.bench import BenchOptions, parse_config, run_bench
    from accord.bench.single import store_episode
    from accord.domains import EpisodeSpec, get_domain
    from accord.domains.bargaining import resolve_scenario, run_negotiation
    from accord.testing.stores import grow_store

    src = tmp / "gated.db"
    cfg = parse_config({"name": "gated", "domain": "bargaining",
                        "scenarios": ["buyer-seller", "procurement"],
                        "agents": [["boulware", "conceder"], ["linear", "linear"]],
                        "seeds": 2, "require_approval": True}, "<bench>")
    run_bench(cfg, BenchOptions(store=str(src), quiet=True))
    t0 = time.perf_counter()
    big_ids = grow_store(src, "gated", tmp / "big.db", "big", n, with_trajectories=20)
    build = time.perf_counter() - t0
    small_ids = grow_store(src, "gated", tmp / "small.db", "small", 10, with_trajectories=10)
    params = {"max_rounds": 200, "stagnation_rounds": 0}
    spec = EpisodeSpec("bargaining", "buyer-seller", ("boulware", "boulware"), params, 0)
    from accord.agents.spec import parse_agent_list

    result = asyncio.run(run_negotiation(resolve_scenario("buyer-seller"),
                                         parse_agent_list("boulware,boulware"), params=params,
                                         seed=0))
    long_id = store_episode(tmp / "long.db", spec, result,
                            get_domain("bargaining").metrics(spec, result))
    return {"big": big_ids, "small": small_ids, "long": long_id, "build": build,
            "rounds": result.summary()["rounds"], "events": len(result.trajectory)}


class _Answer:
    """What a page request returned (the part the benchmark checks)."""

    def __init__(self, status_code: int, text: str) -> None:
        self.status_code, self.text = status_code, text


class HttpClient:
    """A keep-alive HTTP/1.1 client of one server on 127.0.0.1 (the stdlib's, so the
    client adds as little as it can to the wall time)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def get(self, url: str) -> _Answer:
        """GET ``url``; the whole body is read."""
        self.conn.request("GET", url)
        res = self.conn.getresponse()
        return _Answer(res.status, res.read().decode("utf-8", "replace"))

    def close(self) -> None:
        self.conn.close()


class Server:
    """``accord serve STORES --port 0`` in a child process (the real server: uvicorn on
    127.0.0.1), its port read from what it prints, its CPU read from ``/proc``."""

    def __init__(self, stores: list[Path]) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).resolve().parents[1] / "src"), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "accord", "serve", *map(str, stores), "--host", "127.0.0.1",
             "--port", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
            env=env)
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found is None:
            self.stop()
            raise RuntimeError(f"accord serve did not start: {line!r}")
        self.port = int(found.group(1))
        deadline = time.monotonic() + 120
        while True:  # the port is bound before uvicorn listens on it: wait until it answers
            try:
                probe = HttpClient(self.port)
                ok = probe.get("/").status_code == 200
                probe.close()
                if ok:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("accord serve did not answer on 127.0.0.1")
            time.sleep(0.05)

    def cpu(self) -> float:
        """The server's CPU seconds so far (user + system; Linux ``/proc``)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


Times = tuple[list[float], list[float]]


def _time(client: Any, url: str, repeat: int, server: Server | None = None) -> Times:
    """Wall and CPU seconds of ``repeat`` requests (after 3 warm-up requests): the CPU of
    this process per request (in process), or the server's mean per request (over HTTP,
    one figure repeated so medians and p95 read the same)."""
    for _ in range(3):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
    wall, cpu = [], []
    s0 = server.cpu() if server is not None else 0.0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        r = client.get(url)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert r.status_code == 200
    if server is not None:
        cpu = [(server.cpu() - s0) / repeat] * repeat
    return wall, cpu


def _p95(ms: list[float]) -> float:
    ms = sorted(ms)
    return ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def _line(name: str, times: tuple[list[float], list[float]]) -> str:
    wall = [t * 1e3 for t in times[0]]
    cpu = [t * 1e3 for t in times[1]]
    return (f"{name:48s} wall median {statistics.median(wall):7.2f} ms  p95 {_p95(wall):7.2f}"
            f" ms  max {max(wall):7.2f} ms | CPU median {statistics.median(cpu):6.2f} ms  "
            f"p95 {_p95(cpu):6.2f} ms  (n={len(wall)})")


def _pages(built: dict[str, Any], n: int) -> dict[str, str]:
    big, small = built["big"], built["small"]
    return {
        "run page, 10 episodes (baseline)": "/stores/1/runs/small",
        f"run page, {n} episodes, page 1": "/stores/0/runs/big",
        f"run page, {n} episodes, middle page": f"/stores/0/runs/big?page={n // 100}",
        f"run page, {n} episodes, last page": f"/stores/0/runs/big?page={n // 50}",
        f"run page, {n} ep., sorted by rounds": "/stores/0/runs/big?sort=rounds",
        f"run page, {n} ep., scenario filter":
            "/stores/0/runs/big?scenario=procurement&page=100",
        "run API twin, page 1": "/api/stores/0/runs/big/episodes",
        f"episode page in the {n} store (8-char id)": f"/episodes/{big[3][:8]}",
        "episode page in the 10 store (8-char id)": f"/episodes/{small[3][:8]}",
        "episode page, 200-round transcript": f"/episodes/{built['long'][:8]}",
        "episode API twin, 200-round transcript": f"/api/episodes/{built['long'][:8]}",
        "index (3 stores)": "/",
    }


def _measure(mode: str, client: Any, built: dict[str, Any], n: int, repeat: int,
             server: Server | None = None) -> None:
    """Every page in one mode, printed with the mode on each line."""
    t0, c0 = time.perf_counter(), (server.cpu() if server is not None else time.process_time())
    assert client.get("/stores/0/runs/big/aggregate").status_code == 200
    cold = time.perf_counter() - t0
    cold_cpu = (server.cpu() if server is not None else time.process_time()) - c0
    firsts = {}
    for what, url in (("scenario filter", "/stores/0/runs/big?scenario=buyer-seller"),
                      ("sort by wall time", "/stores/0/runs/big?sort=wall_time")):
        t0 = time.perf_counter()
        assert client.get(url).status_code == 200
        firsts[what] = time.perf_counter() - t0
    cpu_label = "server CPU mean" if server is not None else "CPU"
    print(f"\n[{mode}] load average {os.getloadavg()[0]:.2f}"
          + ("; CPU is the server process's, the mean per request of each page"
             if server is not None else "; CPU is this process's (app and TestClient)"))
    results = {name: _time(client, url, repeat, server)
               for name, url in _pages(built, n).items()}
    for name, times in results.items():
        print(f"[{mode:10s}] " + _line(name, times).replace("CPU median", cpu_label))
    for k, what in ((0, "wall"), (1, cpu_label)):
        base = statistics.median(results["run page, 10 episodes (baseline)"][k])
        first = statistics.median(results[f"run page, {n} episodes, page 1"][k])
        if base > 0:
            print(f"[{mode}] run page {n} / 10 episodes: {first / base:.2f}x ({what}, median)")
    for what, sec in firsts.items():
        print(f"[{mode}] first request of a new view ({what}) on {n} episodes: "
              f"{sec * 1e3:.0f} ms wall (the scan; later pages use the cached order)")
    print(f"[{mode}] aggregate of the {n}-episode run, first computation (loaded after the "
          f"page by app.js, then cached): {cold * 1e3:.0f} ms wall, {cold_cpu * 1e3:.0f} ms "
          + ("server CPU" if server is not None else "CPU"))


#: the headless Chromium the browser tests use (tests/conftest.py)
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def _clients(port: int, url: str, repeat: int) -> None:
    """One small page through three clients over one kept-alive connection each: the
    stdlib's ``http.client``, ``curl`` and a headless Chromium's ``fetch`` (its Resource
    Timing, request start to response end): a server-side delay shows in all three, a
    client's own only in one. Absent tools are said, not faked."""
    full = f"http://127.0.0.1:{port}{url}"
    client = HttpClient(port)
    try:
        wall, _ = _time(client, url, repeat)
    finally:
        client.close()
    print(f"[clients] {url}: http.client median {statistics.median(wall) * 1e3:.1f} ms")
    if shutil.which("curl"):
        out = subprocess.run(["curl", "-s", "-w", "%{time_total}\n",
                              *["-o", os.devnull, full] * (repeat + 3)],
                             capture_output=True, text=True, check=True).stdout.split()
        times = [float(x) for x in out][3:]
        print(f"[clients] {url}: curl median {statistics.median(times) * 1e3:.1f} ms")
    else:
        print("[clients] curl: not installed")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("[clients] Chromium: selenium is not installed")
        return
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        print(f"[clients] Chromium: needs {CHROMIUM} and {CHROMEDRIVER}")
        return
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    with tempfile.TemporaryDirectory() as profile:
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                    f"--user-data-dir={profile}"):
            opts.add_argument(arg)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        try:
            driver.get(full)
            ms = [driver.execute_script(
                "performance.clearResourceTimings();"
                "await fetch(location.href, {cache: 'no-store'}).then(r => r.text());"
                "const e = performance.getEntriesByType('resource').pop();"
                "return e.responseEnd - e.requestStart;") for _ in range(repeat)]
        finally:
            driver.quit()
    print(f"[clients] {url}: Chromium fetch() median {statistics.median(ms):.1f} ms "
          "(Resource Timing, request start to response end)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=60)
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--mode", choices=("in-process", "http", "both"), default="both",
                    help="through the ASGI app in process, over real HTTP to accord serve "
                    "on 127.0.0.1, or both (default)")
    ap.add_argument("--clients", action="store_true",
                    help="over HTTP, also time the 10-episode run page with http.client, "
                    "curl and a headless Chromium's fetch (is a delay the server's?)")
    args = ap.parse_args()
    from starlette.testclient import TestClient

    from accord.serve.app import create_app

    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        built = _build(tmp, args.episodes)
        print(f"built a {args.episodes}-episode store in {built['build']:.1f} s; 200-round "
              f"episode: {built['rounds']} rounds, {built['events']} events")
        stores = [tmp / "big.db", tmp / "small.db", tmp / "long.db"]
        if args.mode in ("in-process", "both"):
            c = TestClient(create_app(stores), base_url="http://127.0.0.1")
            _measure("in-process", c, built, args.episodes, args.repeat)
        if args.mode in ("http", "both"):
            server = Server(stores)
            client = HttpClient(server.port)
            try:
                _measure("http", client, built, args.episodes, args.repeat, server)
                if args.clients:
                    print()
                    _clients(server.port, "/stores/1/runs/small", args.repeat)
            finally:
                client.close()
                server.stop()
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
