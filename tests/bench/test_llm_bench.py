"""An LLM party against a concession agent through ``accord bench``: caching, replay and
token accounting end to end over real HTTP against the stub (issue 4's "done when")."""

import json

from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing import StubServer

KEY = "sk-bench-SECRET-0badc0de"

CONFIG = """
name: llm-demo
domain: bargaining
scenarios: [buyer-seller]
agents:
  - ["llm:openai-api/stub/negotiator?temperature=0.3", boulware]
seeds: 3
"""


def test_llm_party_through_bench_with_cache_replay_and_tokens(tmp_path, monkeypatch):
    cfg = tmp_path / "llm.yaml"
    cfg.write_text(CONFIG)
    store = tmp_path / "runs" / "llm.db"
    cache = tmp_path / "llm-cache.db"
    runner = CliRunner()
    with StubServer("negotiator", api_key=KEY) as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
        res = runner.invoke(app, ["bench", str(cfg), "--store", str(store), "--cache",
                                  str(cache), "--quiet"])
        assert res.exit_code == 0, res.output
        recorded = len(stub.completion_requests)
        assert recorded > 0
        # a replay-only rerun into a fresh store makes no request and gives the same records
        stub.reset()
        store2 = tmp_path / "runs" / "replay.db"
        res = runner.invoke(app, ["bench", str(cfg), "--store", str(store2), "--cache",
                                  str(cache), "--cache-mode", "replay", "--quiet"])
        assert res.exit_code == 0, res.output
        assert stub.completion_requests == []
    first = json.loads(runner.invoke(app, ["results", str(store), "--format", "json"]).stdout)
    again = json.loads(runner.invoke(app, ["results", str(store2), "--format", "json"]).stdout)
    assert [e["status"] for e in first["episodes"]] == ["done"] * 3
    by_id = {e["id"]: e for e in first["episodes"]}
    assert set(by_id) == {e["id"] for e in again["episodes"]}
    for e in again["episodes"]:
        assert e["summary"]["record"] == by_id[e["id"]]["summary"]["record"]
        assert e["summary"]["rounds"] == by_id[e["id"]]["summary"]["rounds"]
    # token usage reached the store, per agent
    usage = [e.get("usage") for e in first["episodes"]]
    assert all(u and u["buyer"]["prompt_tokens"] > 0 for u in usage), usage
    # the key never reaches the store or the cache
    for path in (store, cache):
        assert KEY.encode() not in path.read_bytes()


def test_results_layout_prints_task_exchange_tables(tmp_path):
    cfg = tmp_path / "tx.yaml"
    cfg.write_text("name: tx\ndomain: task-exchange\nscenarios: [cooperative, competitive]\n"
                   "agents:\n  - [utility-aware, utility-aware]\n"
                   "params:\n  strategy: [utility-aware, baseline]\nseeds: 2\n")
    store = tmp_path / "tx.db"
    runner = CliRunner()
    assert runner.invoke(app, ["bench", str(cfg), "--store", str(store), "--quiet"]).exit_code == 0
    res = runner.invoke(app, ["results", str(store), "--layout", "task-exchange"])
    assert res.exit_code == 0, res.output
    for title in ("Table 1(a) cooperative", "Table 1(b) competitive", "Table 1(c)", "Table 2"):
        assert title in res.stdout
    data = json.loads(runner.invoke(app, ["results", str(store), "--layout", "task-exchange",
                                          "--format", "json"]).stdout)
    assert data
    bad = runner.invoke(app, ["results", str(store), "--layout", "nope"])
    assert bad.exit_code == 2 and "task-exchange" in bad.output
