"""Play app: server time of the pages a person waits on (real HTTP through uvicorn).

Prints median (min-max) and p95 wall time per request, with the load average, for:

* ``GET /`` (the new-negotiation page);
* ``GET /g/ID`` on the person's turn in bargaining (buyer-seller) after N rounds of offers;
* ``GET /g/ID/utility`` (the live utility of the package being built);
* one full turn: ``POST /g/ID/move`` (a counter-offer) until the page shows the person's
  next turn, boulware answering in between.

    python benchmarks/bench_play.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from _util import machine, summary

from accord.play.web import PlaySettings, create_app


def p95(times: list[float]) -> str:
    return f"p95 {statistics.quantiles(times, n=20)[-1] * 1e3:.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    store = Path(tempfile.mkdtemp()) / "play.sqlite"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(store, PlaySettings()), host="127.0.0.1",
                                        port=port, log_level="warning", lifespan="off"))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.01)
    print(f"{machine()}; load average {os.getloadavg()}")
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
        c.get("/")
        tok = c.cookies["accord_csrf"]
        r = c.post("/new", data={"csrf": tok, "domain": "bargaining", "seat": "1",
                                 "scenario.bargaining": "buyer-seller", "opponent": "boulware",
                                 "rounds": "1000"})
        url = r.headers["location"]

        def wait_turn() -> int:
            while True:
                st = c.get(url + "/state").json()
                if st["status"] != "waiting":
                    return int(st["version"])

        def timed(fn: object, n: int) -> list[float]:
            out = []
            for _ in range(n):
                t0 = time.perf_counter()
                fn()  # type: ignore[operator]
                out.append(time.perf_counter() - t0)
            return out

        pkg = {"pkg.price": "1200", "pkg.delivery_days": "10", "pkg.warranty_years": "0"}

        def turn() -> None:
            version = wait_turn()
            c.post(url + "/move", data={"csrf": tok, "version": str(version),
                                        "kind": "counter", **pkg})
            wait_turn()

        rows = [("GET / (new negotiation)", timed(lambda: c.get("/"), args.repeat))]
        wait_turn()
        rows.append(("GET /g/ID (your turn, round 1)", timed(lambda: c.get(url), args.repeat)))
        rows.append(("GET /g/ID/utility", timed(lambda: c.get(url + "/utility", params=pkg),
                                                args.repeat)))
        rows.append(("one turn: POST move .. next turn", timed(turn, args.repeat)))
        rows.append((f"GET /g/ID (your turn, round {args.repeat + 1})",
                     timed(lambda: c.get(url), args.repeat)))
        for name, times in rows:
            print(f"{name:38s} {summary(times)}  {p95(times)}")
    srv.should_exit = True


if __name__ == "__main__":
    main()
