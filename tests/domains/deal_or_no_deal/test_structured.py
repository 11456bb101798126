"""Structured output for the Deal-or-No-Deal LLM agents over real HTTP (the stub server):
the turn's schema (legal moves, every item's count range, the seed mode's belief rows) in
the request, JSON replies read into the same typed moves, bad JSON sent back with
feedback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents import structured as st
from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer

KEY = "sk-test-DOND-struct"
# 1 book, 2 hats, 3 balls; alice's values 4, 0, 2 (total 10)
POINT = Datapoint("hand/s", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                  "hand", (1,))
Point = Callable[[StubServer], None]


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Point:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
    return point


def _reply(move: str, deal: dict[str, int] | None = None, message: str = "",
           **extra: Any) -> str:
    return json.dumps({**extra, "move": move, "deal": deal or {"book": 0, "hat": 0, "ball": 0},
                       "message": message})


def play(agents: list[str], rounds: int = 2) -> EpisodeResult:
    return asyncio.run(play_datapoint(POINT, agents, rounds=rounds, seed=0))


def test_raw_llm_sends_the_turn_schema_and_reads_json_moves(stub_env: Point) -> None:
    replies = [_reply("offer", {"book": 1, "hat": 0, "ball": 2}, "I like the book."),
               _reply("accept", message="Fine.")]
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = play(["llm:openai-api/stub/a?structured=json_schema", "greedy"], rounds=3)
    reqs = stub.completion_requests
    schema = reqs[0].params["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["move", "deal", "message"]
    assert schema["properties"]["move"] == {"enum": ["offer", "message", "walk"]}
    deal = schema["properties"]["deal"]["properties"]
    assert deal == {"book": {"enum": [0, 1]}, "hat": {"enum": [0, 1, 2]},
                    "ball": {"enum": [0, 1, 2, 3]}}
    prompt = reqs[0].messages[-1]["content"]
    assert "Reply with one JSON object and nothing else" in prompt
    assert "with reject your counter-proposal" in prompt
    # the system prompt (tag instructions) is unchanged by structured output
    assert "HOW TO REPLY" in reqs[0].messages[0]["content"]
    moves = [e for e in res.trajectory if e.kind == "move" and e.party == "alice"]
    assert moves[0].move is not None
    assert moves[0].move["kind"] == "offer"
    assert moves[0].move["package"] == {"book": 1, "hat": 0, "ball": 2}
    if len(reqs) > 1:  # greedy countered: alice may answer it, with accept now legal
        answer = reqs[1].params["response_format"]["json_schema"]["schema"]
        assert answer["properties"]["move"]["enum"][:3] == ["offer", "accept", "reject"]


def test_grammar_mode_and_bad_json_gets_feedback(stub_env: Point) -> None:
    replies = ['{"move": "offer", "deal": ', _reply("accept"),
               _reply("walk", message="No thanks.")]
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = play(["llm:openai-api/stub/a?structured=grammar", "greedy"])
    reqs = stub.completion_requests
    grammar = reqs[0].params["grammar"]
    assert '"\\"offer\\"" | "\\"message\\"" | "\\"walk\\""' in grammar
    assert "response_format" not in reqs[0].params
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "alice"]
    assert [e.reason for e in invalid] == ["invalid_json", "invalid_move"]
    assert "not valid JSON" in (invalid[0].feedback or "")
    assert "offer, message, walk" in (invalid[1].feedback or "")
    assert "not valid JSON" in reqs[1].messages[-1]["content"]
    assert "grammar" in reqs[1].params  # the retry carries the grammar again
    assert res.status == "no_deal" and res.reason == "walk"


def test_seed_mode_states_its_belief_in_json(stub_env: Point) -> None:
    # bob's possible valuations: 1*v_book + 2*v_hat + 3*v_ball = 10
    belief = [{"values": {"book": 1, "hat": 3, "ball": 1}, "p": "1/2"},
              {"values": {"book": 4, "hat": 0, "ball": 2}, "p": "1/2"}]
    replies = [_reply("offer", {"book": 1, "hat": 0, "ball": 3}, "Hi.", belief=belief),
               _reply("walk", belief=belief)]
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = play(["llm-workflow:openai-api/stub/a?structured=json_schema", "greedy"])
    schema = stub.completion_requests[0].params["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["belief", "move", "deal", "message"]
    row = schema["properties"]["belief"]["items"]
    assert row["properties"]["values"]["properties"]["book"] == {"enum": list(range(11))}
    assert row["properties"]["values"]["properties"]["ball"] == {"enum": [0, 1, 2, 3]}
    assert "The belief lists each valuation" in stub.completion_requests[0].messages[-1][
        "content"]
    trace = res.record["beliefs"]["alice"]
    first = trace[0]
    assert first["stated"] is True and first["source"] == "model"
    assert sorted(first["support"]) == [[1, 3, 1], [4, 0, 2]]


def test_describe_lists_the_fields() -> None:
    from accord.domains.deal_or_no_deal.llm.structured import deal_schema

    lines = st.describe(st.obj({"deal": deal_schema(["book", "hat"], [1, 2])}))
    assert lines == ["- deal: an object with", "  - book: one of 0, 1",
                     "  - hat: one of 0, 1, 2"]
    same = st.describe(st.obj({"deal": deal_schema(["book", "hat"], [2, 2])}))
    assert same == ['- deal: an object with one of 0, 1, 2 for each of "book", "hat"']
