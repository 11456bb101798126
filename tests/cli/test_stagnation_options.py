"""``accord run`` carries seed 002's stagnation options, over real HTTP to the stub."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.stub import StubServer

runner = CliRunner()


def test_run_with_llm_scorer_on_issues(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    out = tmp_path / "t.jsonl"
    with StubServer() as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-cli-stagnation")
        res = runner.invoke(app, [
            "run", "bargaining/split", "--agents", "hardliner,hardliner", "--json",
            "--stagnation", "llm:openai-api/stub/stagnation", "--stagnation-measure", "issues",
            "--stagnation-epsilon", "0", "--mediator", "pareto", "--out", str(out)])
        assert [r.model for r in stub.completion_requests] == ["stagnation"]
    assert res.exit_code == 0, res.output
    rec = json.loads(res.output)
    assert (rec["status"], rec["reason"], rec["who"]) == ("no_deal", "stagnation", "alice")
    assert "stagnation scorer judged the last 3 rounds STAGNANT" in rec["detail"]
    notes = [json.loads(line) for line in out.read_text().splitlines()]
    fired = [e for e in notes if e.get("reason") == "stagnation"]
    assert fired and fired[0]["data"]["rule"] == "scorer" and fired[0]["data"]["then"] == "walk"


@pytest.mark.parametrize("args, text", [
    (["--stagnation-measure", "euclid"], "utility, issues"),
    (["--stagnation", "gpt-4"], "'code' or 'llm:MODEL'"),
    (["--stagnation-order", "x"], "walk-first, mediator-first"),
])
def test_bad_options_are_clean_errors(args: list[str], text: str) -> None:
    res = runner.invoke(app, ["run", "bargaining/split", "--agents", "hardliner,hardliner",
                              *args])
    assert res.exit_code == 2 and text in res.output and "Traceback" not in res.output
