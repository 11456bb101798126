"""Forks of LLM episodes over the stub server (real HTTP): the forked model gets the
parent's conversation, the replayed rounds make no call, a cached fork makes none at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from accord.agents.replies import parse_negotiation_reply, strip_private
from accord.bench.fork import load_parent
from accord.cli.main import app
from accord.core.moves import move_from_dict
from accord.domains.bargaining import resolve_scenario
from accord.testing.stub import StubServer

runner = CliRunner()
LLM = "llm:openai-api/stub/negotiator"


def _run(db: Path, agents: str, *extra: str) -> str:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", agents, "--save",
                              str(db), "--json", *extra])
    assert res.exit_code == 0, res.output
    return str(json.loads(res.stdout)["stored"]["id"])


def _calls_before(db: Path, eid: str, party: str, at: int) -> int:
    events = load_parent(db, eid).events
    return sum(1 for e in events if e["kind"] == "note" and e.get("reason") == "llm_call"
               and e["party"] == party and e["round"] < at)


def test_the_forked_model_asks_with_the_conversation_it_had(stub_env: Any,
                                                            tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    with StubServer() as stub:
        stub_env(stub)
        eid = _run(db, f"{LLM},boulware")
        parent = list(stub.completion_requests)
        k = _calls_before(db, eid, "buyer", 3)
        assert 0 < k < len(parent)
        res = runner.invoke(app, ["fork", str(db), eid, "--at", "3", "--json"])
        assert res.exit_code == 0, res.output
        forked = stub.completion_requests[len(parent):]
    # no cache: nothing was asked for rounds 1-2, the first request is the buyer's first
    # turn from round 3 on,
    # the request the parent's buyer made there (same prompts, its own earlier replies as
    # the log holds them: without their private reasoning, which accord never logs; the
    # cached fork below gets them whole), same seed
    assert forked, "the fork played round 3 on"
    public = [{**m, "content": strip_private(m["content"])} if m["role"] == "assistant"
              else m for m in parent[k].messages]
    assert any(p != q for p, q in zip(public, parent[k].messages, strict=True))
    assert forked[0].messages == public
    assert forked[0].params.get("seed") == parent[k].params.get("seed")
    assert len(forked[0].messages) == 2 * k + 2  # system, k turns, the new prompt


def test_a_cached_fork_with_the_same_agents_calls_nothing(stub_env: Any,
                                                          tmp_path: Path) -> None:
    db, cache = tmp_path / "runs.db", tmp_path / "cache.sqlite"
    with StubServer() as stub:
        stub_env(stub)
        eid = _run(db, f"{LLM},boulware", "--cache", str(cache))
        before = len(stub.completion_requests)
        res = runner.invoke(app, ["fork", str(db), eid, "--at", "2", "--cache", str(cache),
                                  "--json"])
        assert res.exit_code == 0, res.output
        after = len(stub.completion_requests)
    out = json.loads(res.stdout)
    parent, fork = out["comparison"]
    assert after == before  # the prefix from the log, the rest from the parent's cache
    assert (fork["status"], fork["rounds"], fork["values"]) == \
        (parent["status"], parent["rounds"], parent["values"])


def test_a_model_taking_over_a_code_seat_sees_its_moves_as_its_own_replies(
        stub_env: Any, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    eid = _run(db, "boulware,boulware")
    logged = [e for e in load_parent(db, eid).events
              if e["kind"] == "move" and e["party"] == "buyer" and e["round"] < 3]
    with StubServer() as stub:
        stub_env(stub)
        res = runner.invoke(app, ["fork", str(db), eid, "--at", "3", "--party",
                                  f"buyer={LLM}", "--json"])
        assert res.exit_code == 0, res.output
        first = stub.completion_requests[0]
    mine = [m["content"] for m in first.messages if m["role"] == "assistant"]
    assert len(mine) == len(logged) >= 2
    issues = {i.name: list(i.values) for i in resolve_scenario("buyer-seller").space.issues}
    for text, ev in zip(mine, logged, strict=True):
        phase = "propose" if ev["move"]["kind"] == "offer" else "respond"
        assert parse_negotiation_reply(text, issues, phase) == move_from_dict(ev["move"])
    assert json.loads(res.stdout)["forks"][0]["changes"] == {"agents": {"buyer": LLM}}
