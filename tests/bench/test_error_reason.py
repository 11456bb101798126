"""An episode that ends in status ``error`` names its reason everywhere a person looks:
the bench summary's ``first_error``, the per-episode error column and ``accord run
--json``'s ``detail`` (issue 25: a 10-episode bench against a real model said
``first_error: null`` with every episode in error). The reason here is a real server
shape: the model's context is too small for the prompt."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.stub import ContextLimitPolicy, StubServer

CONFIG = """\
name: ctx
domain: bargaining
scenarios: [buyer-seller]
agents:
  - ["llm:openai-api/stub/small", boulware]
seeds: 2
params: {max_rounds: 4}
"""

runner = CliRunner()


@pytest.fixture
def small_model(monkeypatch: pytest.MonkeyPatch):
    with StubServer() as stub:
        stub.set_policy("small", ContextLimitPolicy(context=300, server="openai",
                                                    inner="negotiator"))
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-stub-test-key-000111222")
        yield stub


def test_bench_summary_and_error_column_name_the_overflow(small_model, tmp_path,
                                                          write_config) -> None:
    cfg = write_config(CONFIG, "ctx.yaml")
    store = tmp_path / "ctx.db"
    res = runner.invoke(app, ["bench", str(cfg), "--out", str(store), "--json"])
    assert res.exit_code == 1, res.output  # every episode ended in error
    out = json.loads(res.stdout)
    assert out["errored"] == 2
    first = out["first_error"]["error"]
    assert "ContextOverflowError" in first
    assert "exceeds the 300-token context of model 'openai-api/stub/small'" in first
    table = runner.invoke(app, ["results", str(store), "--per-episode", "-f", "csv"])
    assert table.exit_code == 0, table.output
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert len(rows) == 2
    assert all("the 300-token context of model" in r["error"] for r in rows)


def test_run_json_detail_names_the_overflow(small_model) -> None:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "llm:openai-api/stub/small,boulware", "--json"])
    out = json.loads(res.stdout)
    assert out["status"] == "error"
    assert "tokens by the server's count) exceeds the 300-token context" in out["detail"]
    assert len(small_model.completion_requests) == 1  # not retried
