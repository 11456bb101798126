"""A key a model echoes never leaves: not in the trajectory log, the cache, the store, the
JSON on stdout or the transcript; credentials in a base URL are refused, not dropped."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.redact import MASK, Redactor, redact_text
from accord.llm import ConfigurationError, LLMRuntime
from accord.testing.stub import ScriptedPolicy, StubServer

SECRET = "sk-test-ECHOED-0123456789abcdefXYZ"
runner = CliRunner()


def echoing_reply(share: int) -> str:
    """A valid proposal whose message quotes the key (as a reply echoing headers would)."""
    return (f'<PROPOSAL>{{"alice_share": {share}}}</PROPOSAL><MESSAGE>I saw '
            f"Authorization: Bearer {SECRET} and api_key={SECRET} in my input</MESSAGE>")


def test_an_echoed_key_never_leaves_by_any_way_out(tmp_path: Path,
                                                   stub_env: Callable[..., None]) -> None:
    script = ScriptedPolicy([echoing_reply(s) for s in (9, 8, 7, 6, 5)], cycle=True)
    cache, log, store = tmp_path / "c.db", tmp_path / "t.jsonl", tmp_path / "s.db"
    with StubServer(script) as stub:
        stub_env(stub, key=SECRET)
        res = runner.invoke(app, ["run", "bargaining/split", "--agents",
                                  "llm:openai-api/stub/m,linear", "--cache", str(cache),
                                  "--out", str(log), "--json"])
        text = runner.invoke(app, ["run", "bargaining/split", "--agents",
                                   "llm:openai-api/stub/m,linear", "--cache", str(cache),
                                   "--cache-mode", "replay"])
        cfg = tmp_path / "b.yaml"
        cfg.write_text("name: b\ndomain: bargaining\nscenarios: [split]\n"
                       "agents: [[llm:openai-api/stub/m, linear]]\nseeds: 1\n")
        bench = runner.invoke(app, ["bench", str(cfg), "--out", str(store), "--quiet"])
    assert res.exit_code in (0, 1), res.output
    doc = json.loads(res.stdout)
    assert doc["status"] in ("agreement", "no_deal")
    assert bench.exit_code == 0, bench.output
    shown = runner.invoke(app, ["show", str(store), json.loads(runner.invoke(
        app, ["results", str(store), "--episodes", "--json"]).stdout)["episodes"][0]["id"]])
    outputs = {"json stdout": res.stdout, "transcript": text.output, "show": shown.output,
               "log": log.read_text()}
    for name in ("c.db", "s.db"):
        for f in tmp_path.glob(name + "*"):
            outputs[f.name] = f.read_bytes().decode("latin-1")
    for where, out in outputs.items():
        assert SECRET not in out, where
    assert MASK in outputs["log"]  # the message is kept, the key masked
    rows = sqlite3.connect(cache).execute("SELECT text FROM completions").fetchall()
    assert rows and all(SECRET not in r[0] and MASK in r[0] for r in rows)


async def test_credentials_in_a_base_url_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GW_BASE_URL", "http://user:hunter2-password@127.0.0.1:9/v1")
    monkeypatch.setenv("GW_API_KEY", "the-real-key-123456")
    async with LLMRuntime() as rt:
        with pytest.raises(ConfigurationError) as info:
            rt.client("openai-api/gw/m")
    msg = str(info.value)
    assert "carries credentials" in msg and "GW_BASE_URL" in msg
    assert "hunter2" not in msg


def test_one_redaction_masks_every_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_SECRET", "s3cr3t-value-in-env")
    text = ("Authorization: Bearer abcdefghijkl; Basic dXNlcjpwYXNzd29yZA==; "
            "http://bob:pw-123456@host/v1; sk-ant-api03-XYZXYZXYZ; s3cr3t-value-in-env; "
            '{"api_key": "qwertyuiop"}; ghp_' + "a" * 30)
    out = redact_text(text)
    for leaked in ("abcdefghijkl", "dXNlcjpwYXNzd29yZA==", "pw-123456", "sk-ant-api03",
                   "s3cr3t-value-in-env", "qwertyuiop", "ghp_aaa"):
        assert leaked not in out, leaked
    assert json.loads(Redactor([]).json({"api_key": "qwertyuiop", "n": 3}) or "null") == {
        "api_key": MASK, "n": 3}
    harmless = "the price is 1200 and the secret: sauce"
    assert redact_text(harmless) == harmless
