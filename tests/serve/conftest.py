"""Stores for the web app tests: a real gated bench run, an LLM run over the stub server
with script-injection text, and a synthetic run of 10^5 episodes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from accord.bench import BenchOptions, parse_config, run_bench
from accord.testing.stub import ScriptedPolicy, StubServer

#: what a model "says" in the XSS store: shown as text, never run
XSS = "<script>alert(1)</script> <img src=x onerror=alert(2)>"
BIG = 100_000


def bench(path: Path, spec: dict) -> Path:
    """Run a bench spec (parsed like a YAML file) into the store at ``path``."""
    cfg = parse_config(spec, "<test>")
    rep = run_bench(cfg, BenchOptions(store=str(path), quiet=True))
    assert rep.failed == 0 and rep.done > 0
    return path


GATED = {"name": "gated", "domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
         "agents": [["boulware", "conceder"], ["linear", "linear"]], "seeds": 2,
         "require_approval": True}


@pytest.fixture(scope="session")
def gated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 bargaining episodes with require_approval (every agreement pending)."""
    return bench(tmp_path_factory.mktemp("gated") / "gated.db", GATED)


@pytest.fixture(scope="session")
def stagnation_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two buyer-seller episodes with the stagnation rule on: boulware against itself
    ends in a no-deal (the rule fires and the buyer walks), boulware against conceder
    in an agreement."""
    return bench(tmp_path_factory.mktemp("stag") / "stag.db", {
        "name": "stag", "domain": "bargaining", "scenarios": ["buyer-seller"],
        "agents": [["boulware", "boulware"], ["boulware", "conceder"]], "seeds": 1,
        "params": {"stagnation_rounds": 3}})


@pytest.fixture(scope="session")
def xss_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An LLM agent (over real HTTP to the stub server) whose messages carry script and
    image-onerror payloads; the agreement is gated."""
    reply = (f"<MESSAGE>{XSS}</MESSAGE>"
             '<PROPOSAL>{"price": 1000, "delivery_days": 5, "warranty_years": 2}</PROPOSAL>')
    path = tmp_path_factory.mktemp("xss") / "xss.db"
    old = {k: os.environ.get(k) for k in ("STUB_BASE_URL", "STUB_API_KEY")}
    with StubServer(policies={"xss": ScriptedPolicy([reply, "<ACCEPT/>"], cycle=True)}) as stub:
        os.environ["STUB_BASE_URL"] = stub.base_url
        os.environ["STUB_API_KEY"] = "sk-stub"
        try:
            bench(path, {"name": "xss", "domain": "bargaining", "scenarios": ["buyer-seller"],
                         "agents": [["llm:openai-api/stub/xss", "conceder"]], "seeds": 1,
                         "require_approval": True})
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    yield path


@pytest.fixture(scope="session")
def big_store(tmp_path_factory: pytest.TempPathFactory, gated_store: Path) -> Path:
    """10^5 episodes (copies of the gated run's records, fresh ids), built with one
    executemany."""
    from accord.testing.stores import grow_store

    path = tmp_path_factory.mktemp("big") / "big.db"
    grow_store(gated_store, "gated", path, "big", BIG, with_trajectories=5)
    return path


@pytest.fixture
def make_client() -> Any:
    """``make_client(*paths, token=None)``: a test client of ``accord serve`` over
    ``paths``, as a browser on 127.0.0.1 would reach it."""
    from accord.serve.app import create_app

    def make(*paths: Path, token: str | None = None) -> TestClient:
        return TestClient(create_app(list(paths), token=token), base_url="http://127.0.0.1")

    return make


def csrf_of(c: TestClient) -> str:
    """The CSRF token the client's browser got (after its first request)."""
    if c.cookies.get("accord_csrf") is None:
        c.get("/")
    value = c.cookies.get("accord_csrf")
    assert value
    return value


@pytest.fixture
def csrf() -> Any:
    """``csrf(client)``: the CSRF cookie value of that client."""
    return csrf_of


@pytest.fixture(scope="session")
def lineage_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One store made by the commands a user runs: ``accord run --save`` (the parent),
    ``accord fork --at 5 --party buyer=hardliner --save`` (its fork, another run of the
    same store) and ``accord series -n 2 --critic code --save``. Returns the path and the
    ids: ``parent``, ``fork``, ``series`` (the series' episodes in order)."""
    import json

    from typer.testing import CliRunner

    from accord.bench.store import Store
    from accord.cli.main import app

    path = tmp_path_factory.mktemp("lineage") / "lineage.db"
    runner = CliRunner()
    for args in (["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                  "--save", str(path)],):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
    with Store.open_readonly(path) as st:
        (parent,) = st.episodes("accord-run")
    res = runner.invoke(app, ["fork", str(path), parent.id, "--at", "5", "--party",
                              "buyer=hardliner", "--save", str(path), "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["series", "bargaining/buyer-seller", "--agents",
                              "boulware,conceder", "-n", "2", "--critic", "code", "--save",
                              str(path), "--json"])
    assert res.exit_code == 0, res.output
    series = json.loads(res.stdout)
    with Store.open_readonly(path) as st:
        (fork,) = st.episodes("accord-fork")
        eps = st.episodes("accord-series")
    assert len(eps) == 2 and series["series"]
    return {"path": path, "parent": parent.id, "fork": fork.id,
            "series": [e.id for e in sorted(eps, key=lambda e: e.spec["series"]["index"])]}


MIXED = {"name": "mixed", "seeds": 1, "sweeps": [
    {"domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
     "agents": [["boulware", "conceder"], ["linear", "random"]]},
    {"domain": "bargaining", "scenarios": ["buyer-seller"], "agents": [["boulware", "boulware"]],
     "params": {"stagnation_rounds": 3}},
    {"domain": "games", "scenarios": ["prisoners-dilemma", "stag-hunt"],
     "agents": [["rational", "rational"]]},
    {"domain": "task-exchange", "scenarios": ["competitive", "cooperative"],
     "agents": [["utility-aware", "utility-aware"]]}]}


@pytest.fixture(scope="session")
def mixed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of code agents only mixing three domains (bargaining with and without the
    stagnation parameter, two games, two task exchanges)."""
    return bench(tmp_path_factory.mktemp("mixed") / "mixed.db", MIXED)
