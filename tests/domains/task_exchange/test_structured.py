"""Structured output for the task-exchange LLM agent over real HTTP (the stub server): each
phase's schema (the private plan, the valid splits, accept / reject) in the request, JSON
replies read into the same moves with Figure 7 text for the partner, bad JSON sent back
with feedback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accord.agents import structured as st
from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.task_exchange import DOMAIN, get_scenario
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer

KEY = "sk-test-TX-struct"
UNI = get_scenario("cooperative").universe
ALICE, BOB = UNI.description(0b100001), UNI.description(0b011110)


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
    return point


async def episode(agents: list[str], **params: Any) -> EpisodeResult:
    spec = EpisodeSpec("task-exchange", "cooperative",
                       tuple(parse_agent_spec(a) for a in agents),
                       {"strategy": "utility-aware", **params}, 0)
    return await DOMAIN.run_episode(spec, RunContext())


def split(alice: str = ALICE, bob: str = BOB) -> dict[str, str]:
    return {"Alice": alice, "Bob": bob}


async def test_each_phase_sends_its_schema_and_json_becomes_moves(stub_env: Any) -> None:
    replies = [json.dumps({"consider": "I want apply_SE and apply_SD."}),
               json.dumps({"proposal": split(), "message": "You take the rest."}),
               json.dumps({"move": "accept", "proposal": split(), "message": "Deal."})]
    async with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = await episode(["llm:openai-api/stub/x?structured=json_schema", "utility-aware"])
    reqs = stub.completion_requests
    schemas = [r.params["response_format"]["json_schema"]["schema"] for r in reqs]
    assert schemas[0]["properties"] == {"consider": st.text()}
    proposal = schemas[1]["properties"]["proposal"]
    assert len(proposal["anyOf"]) == 62  # every split of 6 tasks, each agent >= 1 task
    assert st.obj({"Alice": st.enum([ALICE]), "Bob": st.enum([BOB])}) in proposal["anyOf"]
    assert st.obj({"Alice": st.enum([UNI.description(UNI.full)]),
                   "Bob": st.enum([UNI.description(0)])}) not in proposal["anyOf"]
    assert "each agent gets one composite description" in reqs[1].messages[-1]["content"]
    assert "<PROPOSAL>" in reqs[0].messages[0]["content"]  # Figure 7 text is unchanged
    alice = [e for e in res.trajectory if e.kind == "move" and e.party == "Alice"]
    offer = alice[1].move
    assert offer is not None and offer["kind"] == "offer"
    assert offer["package"] == split()
    # the partner reads the proposal in the Figure 7 tags, never the raw JSON reply
    history = res.record.get("proposals") or []
    assert history and history[0]["proposer"] == "Alice" and history[0]["valid"]
    # the private plan reaches no note and no partner
    notes = [e.data["reply"] for e in res.trajectory if e.kind == "note"
             and e.reason == "llm_call"]
    assert notes and not any("apply_SE and apply_SD" in n for n in notes)
    assert '"consider": "(private)"' in notes[0]
    if len(reqs) > 2:  # Bob countered: Alice answers accept / reject with a split
        answer = schemas[2]
        assert answer["properties"]["move"] == {"enum": ["accept", "reject"]}
    assert res.status in ("agreement", "no_deal")


async def test_grammar_and_bad_json_get_feedback(stub_env: Any) -> None:
    replies = [json.dumps({"consider": "plan"}), '{"proposal": {"Alice": ',
               json.dumps({"proposal": {"Alice": ALICE, "Carol": BOB}, "message": ""}),
               json.dumps({"proposal": split(), "message": ""}),
               json.dumps({"move": "accept", "proposal": split(), "message": ""})]
    async with StubServer(ScriptedPolicy(replies)) as stub:
        stub_env(stub)
        res = await episode(["llm:openai-api/stub/x?structured=grammar", "utility-aware"])
    reqs = stub.completion_requests
    assert all("grammar" in r.params for r in reqs)
    assert '"\\"consider\\""' in reqs[0].params["grammar"]
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "Alice"]
    assert [e.reason for e in invalid] == ["invalid_json", "malformed_proposal"]
    assert "not valid JSON" in reqs[2].messages[-1]["content"]
    assert res.status in ("agreement", "no_deal")


def test_the_text_a_partner_sees_is_figure_7() -> None:
    from accord.core.moves import Accept, Offer, Reject
    from accord.domains.task_exchange.llm.structured import tagged_text

    roles = ["Alice", "Bob"]
    offer = Offer(split())
    assert tagged_text(offer, "Hi.", roles).startswith("Hi.\n<PROPOSAL>{")
    assert tagged_text(Accept(), None, roles) == \
        "<ACCEPT> I agree with this allocation. </ACCEPT>"
    rejected = tagged_text(Reject(counter=offer), "No.", roles)
    assert rejected.startswith("<REJECT> No. </REJECT>\n<PROPOSAL>")
