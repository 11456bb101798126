"""Structured output: the turn's reply schema in the request (real HTTP to the stub), JSON
replies read into the same typed moves, and what is not a valid reply sent back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents import structured as st
from accord.agents.llm_base import llm_client
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.core.moves import Malformed
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.llm.providers import resolve_model
from accord.testing.stub import ScriptedPolicy, StubServer


def _reply(move: str, package: dict[str, Any] | None = None, message: str = "") -> str:
    return json.dumps({"move": move, "package": package or {}, "message": message})


BUYER_OFFER = {"price": 900, "delivery_days": 5, "warranty_years": 1}


async def test_schema_is_sent_and_json_replies_become_moves(
        stub_env: Callable[..., None]) -> None:
    replies = [
        "```json\n" + _reply("offer", BUYER_OFFER, "A fair start.") + "\n```",  # fenced
        _reply("accept"),
    ]
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = await run_negotiation(
            resolve_scenario("buyer-seller"),
            ["llm:openai-api/stub/x?structured=json_schema", "conceder"],
            params={"max_rounds": 6}, seed=0)
    sent = [r.params for r in stub.completion_requests]
    first = sent[0]["response_format"]
    assert first["type"] == "json_schema" and first["json_schema"]["strict"] is True
    schema = first["json_schema"]["schema"]
    assert schema["properties"]["move"] == {"enum": ["offer", "walk"]}
    issues = resolve_scenario("buyer-seller").space.issues
    assert {k: v["enum"] for k, v in schema["properties"]["package"]["properties"].items()} \
        == {i.name: list(i.values) for i in issues}
    assert schema["required"] == ["move", "package", "message"]
    answering = sent[1]["response_format"]["json_schema"]["schema"]
    assert answering["properties"]["move"] == {"enum": ["accept", "reject", "walk"]}
    # the prompt says what each field means, after the turn's own text
    last_user = stub.completion_requests[0].messages[-1]["content"]
    assert "Reply with one JSON object and nothing else" in last_user
    assert "- move: one of \"offer\", \"walk\"" in last_user
    moves = [e for e in res.trajectory if e.kind == "move" and e.party == "buyer"]
    assert moves[0].move is not None and moves[0].move["package"] == BUYER_OFFER
    assert res.status == "agreement"


async def test_grammar_mode_sends_gbnf(stub_env: Callable[..., None]) -> None:
    with StubServer(ScriptedPolicy([_reply("walk", BUYER_OFFER, "no")])) as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/x?structured=grammar", "boulware"],
                                    params={"max_rounds": 3}, seed=0)
    grammar = stub.completion_requests[0].params["grammar"]
    assert grammar.startswith("root ::= \"{\" ws \"\\\"move\\\"\"")
    assert '"\\"offer\\"" | "\\"walk\\""' in grammar
    assert res.status == "no_deal" and res.reason == "walk"


async def test_bad_structured_replies_get_feedback_and_a_retry(
        stub_env: Callable[..., None]) -> None:
    replies = ["{not json", _reply("accept"), _reply("offer", BUYER_OFFER)]
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = await run_negotiation(resolve_scenario("buyer-seller"),
                                    ["llm:openai-api/stub/x?structured=json_schema", "boulware"],
                                    params={"max_rounds": 1}, seed=0)
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "buyer"]
    assert [e.reason for e in invalid] == ["invalid_json", "invalid_move"]
    assert "not valid JSON" in (invalid[0].feedback or "")
    assert "offer, walk" in (invalid[1].feedback or "")
    # the retry prompt carries the feedback and the schema again
    retry = stub.completion_requests[1]
    assert "not valid JSON" in retry.messages[-1]["content"]
    assert "response_format" in retry.params


def test_truncated_replies_and_unreadable_ones() -> None:
    cut = st.read_json('{"move": "offer", "package": {"pri', "length")
    assert isinstance(cut, Malformed) and cut.reason == "truncated"
    assert "cut off" in cut.feedback
    assert isinstance(st.read_json("[1, 2]", "stop"), Malformed)
    deep = "[" * 100_000 + "]" * 100_000
    assert isinstance(st.read_json(deep, "stop"), Malformed)
    assert st.read_json('```\n{"a": 1}\n```', "stop") == {"a": 1}


def test_modes_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    assert st.resolve_mode("auto", resolve_model("mock/echo", {})) == "off"
    ep = resolve_model("vllm/m", {"VLLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert st.resolve_mode("auto", ep) == "json_schema"
    assert st.resolve_mode("grammar", ep) == "grammar"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    with pytest.raises(AgentSpecError, match=r"'anthropic'.*structured=json_schema"):
        llm_client(parse_agent_spec("llm:anthropic/claude-x?structured=json_schema"), None)
    with pytest.raises(AgentSpecError, match="'openai' takes no GBNF"):
        llm_client(parse_agent_spec("llm:openai/gpt-4.1-mini?structured=grammar"), None)
    with pytest.raises(AgentSpecError, match="structured must be one of"):
        llm_client(parse_agent_spec("llm:mock/echo?structured=yes"), None)


def test_gbnf_covers_the_schema_subset() -> None:
    schema = st.obj({"a": st.enum([1, "x"]), "b": st.obj({"c": st.text(5)}),
                     "d": {"type": "integer"}})
    grammar = st.to_gbnf(schema)
    assert "root-1 ::= \"{\" ws \"\\\"c\\\"\" ws \":\" ws root-1-0 ws \"}\"" in grammar
    assert 'root-1-0 ::= "\\"" char{0,5} "\\""' in grammar
    assert 'root-0 ::= "1" | "\\"x\\""' in grammar
    with pytest.raises(ValueError, match="unsupported"):
        st.to_gbnf({"type": "array"})


def test_a_fenced_proposal_inside_its_tag_is_read() -> None:
    from accord.agents.replies import parse_mediator_reply, parse_negotiation_reply
    from accord.core.moves import Offer, Suggest

    fenced = '<PROPOSAL>\n```json\n{"price": 800}\n```\n</PROPOSAL>'
    assert parse_negotiation_reply(fenced, {"price": [800, 900]}, "propose") == Offer(
        {"price": 800})
    got = parse_mediator_reply(fenced + "<RATIONALE>meet</RATIONALE>")
    assert isinstance(got, Suggest) and got.package == {"price": 800}
    still_bad = parse_negotiation_reply("<PROPOSAL>```json\nprice 800\n```</PROPOSAL>",
                                        {"price": [800]}, "propose")
    assert isinstance(still_bad, Malformed) and still_bad.reason == "invalid_json"


async def test_games_send_the_legal_actions_as_the_schema(stub_env: Callable[..., None]) -> None:
    from accord.domains import EpisodeSpec, RunContext, get_domain

    replies = ['{"message": "Let us both cooperate."}', '{"action": "cooperate"}']
    with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        spec = EpisodeSpec("games", "prisoners-dilemma",
                           (parse_agent_spec("llm:openai-api/stub/x?structured=json_schema"),
                            parse_agent_spec("rational")), {"negotiation_rounds": 1}, 0)
        res = await get_domain("games").run_episode(spec, RunContext())
    schemas = [r.params["response_format"]["json_schema"]["schema"]
               for r in stub.completion_requests]
    assert schemas[0]["properties"] == {"message": {"type": "string", "maxLength": 300}}
    assert schemas[-1]["properties"]["action"] == {"enum": ["cooperate", "defect"]}
    assert res.status == "completed"
    assert res.record["profile"][0] == "cooperate"
