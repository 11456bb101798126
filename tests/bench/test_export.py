"""``accord export``: each example is one party's own view (never the other side's private
values), in the JSON-lines chat conventions of Hugging Face datasets / TRL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.marked import Marked

runner = CliRunner()


def _stored(marked: Marked, agents: str) -> Path:
    """One episode of the marked scenario saved to a store beside it."""
    db = marked.path.parent / "runs.db"
    res = runner.invoke(app, ["run", str(marked.path), "--agents", agents, "--save", str(db),
                              "-q"])
    assert res.exit_code == 0, res.output
    return db


def _export(db: Path, fmt: str, tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / f"{fmt}.jsonl"
    res = runner.invoke(app, ["export", str(db), "--format", fmt, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def _check_chat(messages: list[dict[str, str]]) -> None:
    """The chat shape SFT trainers read: system, then user/assistant turns, ending with
    the assistant; every message a role and a string."""
    assert messages[0]["role"] == "system"
    roles = [m["role"] for m in messages[1:]]
    assert roles == ["user", "assistant"] * (len(roles) // 2) and roles[-1] == "assistant"
    assert all(set(m) == {"role", "content"} and isinstance(m["content"], str)
               for m in messages)


def test_each_example_is_its_partys_own_view(stub_env: Any, tmp_path: Path,
                                             marked: Marked) -> None:
    from accord.testing.stub import StubServer

    with StubServer() as stub:
        stub_env(stub)
        db = _stored(marked, "llm:openai-api/stub/negotiator,boulware")
    examples = _export(db, "sft", tmp_path)
    by_party = {e["meta"]["party"]: e for e in examples}
    assert set(by_party) == {"buyer", "seller"}
    for party, mine, theirs in (("buyer", marked.buyer, marked.seller),
                                  ("seller", marked.seller, marked.buyer)):
        ex = by_party[party]
        _check_chat(ex["messages"])
        text = json.dumps(ex["messages"])
        assert all(x in text for x in mine[:2]), party  # its own BATNA and a weight
        assert not any(x in text for x in theirs), party
    buyer, seller = by_party["buyer"], by_party["seller"]
    assert buyer["meta"]["agent"] == "llm:openai-api/stub/negotiator"
    assert buyer["meta"]["replies_from_model"] > 0
    assert seller["meta"]["agent"] == "boulware" and seller["meta"]["replies_from_model"] == 0
    # the model's turns are its logged replies, private reasoning removed
    assert not any("<CONSIDER>" in m["content"] for m in buyer["messages"]
                   if m["role"] == "assistant")


def test_examples_are_rebuilt_from_the_protocols_projection(tmp_path: Path,
                                                            marked: Marked) -> None:
    """The exported chat is what an LLM negotiator in the seat is prompted with: the same
    system prompt and turn prompts, rendered from ``Protocol.observe`` for that party."""
    from accord.agents.llm_negotiator import LLMNegotiator
    from accord.domains.bargaining import load_scenario
    from accord.llm import GenerationConfig
    from accord.llm.client import LLMRuntime
    from accord.protocols.alternating import AlternatingOffers

    db = _stored(marked, "boulware,conceder")
    seller = next(e for e in _export(db, "sft", tmp_path) if e["meta"]["party"] == "seller")
    proto = AlternatingOffers(load_scenario(marked.path))
    state = proto.initial_state()
    agent = LLMNegotiator(LLMRuntime().client("mock/echo"), GenerationConfig(), episode=None)
    obs = proto.observe(state, "seller")
    assert seller["messages"][0]["content"] == agent.system_prompt(obs)


def test_preference_pairs_come_from_forks(tmp_path: Path, marked: Marked) -> None:
    from accord.bench.store import Store

    db = _stored(marked, "boulware,boulware")
    with Store.open_readonly(db) as st:
        eid = st.episodes()[0].id
    res = runner.invoke(app, ["fork", str(db), eid, "--at", "3", "--party", "buyer=conceder",
                              "--save", str(db), "-q"])
    assert res.exit_code == 0, res.output
    pairs = _export(db, "preference", tmp_path)
    assert pairs and {p["meta"]["party"] for p in pairs} == {"buyer"}
    pair = pairs[0]
    _check_chat([*pair["prompt"], *pair["chosen"]])
    _check_chat([*pair["prompt"], *pair["rejected"]])
    assert pair["chosen"] != pair["rejected"]
    assert pair["meta"]["chosen_value"] > pair["meta"]["rejected_value"]
    assert pair["meta"]["fork_round"] == 3
    assert not any(x in json.dumps(pair) for x in marked.seller)


def test_bad_format_and_no_forks_say_so(tmp_path: Path, marked: Marked) -> None:
    db = _stored(marked, "boulware,boulware")
    res = runner.invoke(app, ["export", str(db), "--format", "csv"])
    assert res.exit_code == 2 and "--format must be one of sft, preference" in res.output
    res = runner.invoke(app, ["export", str(db), "--format", "preference"])
    assert res.exit_code == 0 and res.stdout == ""
    assert "wrote 0 preference pairs" in res.stderr and "accord fork" in res.stderr


def test_the_files_load_as_a_datasets_json_dataset(tmp_path: Path,
                                                   marked: Marked) -> None:
    datasets = pytest.importorskip("datasets")
    db = _stored(marked, "boulware,conceder")
    out = tmp_path / "sft.jsonl"
    runner.invoke(app, ["export", str(db), "--out", str(out)])
    ds = datasets.load_dataset("json", data_files=str(out), split="train")
    assert len(ds) == 2 and ds[0]["messages"][0]["role"] == "system"
