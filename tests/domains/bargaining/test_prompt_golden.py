"""Golden prompts of the bargaining LLM sessions (seed 002), captured at the stub server.

Every request an endpoint receives is pinned exactly: the Stakeholder Agent's setup and
turns, the retry after an invalid reply, the mediator and the Stagnation Scorer. The
endpoints are named like real models (``gpt-4.1-mini``, ...) and routed to the stub's
rule-based policies: nothing in what is sent depends on the endpoint being a stub, and no
machine-readable block that only the stub would read reaches it.
Regenerate with ``ACCORD_UPDATE_GOLDEN=1`` after a legitimate prompt change.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.golden import assert_no_stub_blocks, check_golden, render_chat
from accord.testing.stub import ScriptedPolicy, StubServer

HERE = Path(__file__).parent / "golden"


def test_negotiator_prompts(stub_env: Any) -> None:
    policies = {"gpt-4.1-mini": "negotiator", "claude-sonnet": "faulty-malformed"}
    with StubServer(policies=policies) as stub:
        stub_env(stub)
        asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), [
            "llm:openai-api/stub/gpt-4.1-mini", "llm:openai-api/stub/claude-sonnet"],
            params={"max_rounds": 6}, seed=1))
        reqs = stub.completion_requests
    assert_no_stub_blocks(reqs)
    buyer = [r for r in reqs if r.model == "gpt-4.1-mini"]
    seller = [r for r in reqs if r.model == "claude-sonnet"]
    # the buyer's session after its third call: setup, propose turn, respond turns
    check_golden(HERE / "negotiator_buyer.txt", render_chat(buyer[2].messages))
    # the seller's first reply was malformed: the retry restates round and move
    check_golden(HERE / "negotiator_seller_retry.txt", render_chat(seller[1].messages))
    assert "could not be used" in seller[1].messages[-1]["content"]


def test_floor_rule_is_a_named_addition(stub_env: Any) -> None:
    with StubServer(policies={"gpt-4.1-mini": "negotiator"}) as stub:
        stub_env(stub)
        asyncio.run(run_negotiation(resolve_scenario("split"), [
            "llm:openai-api/stub/gpt-4.1-mini?floor_rule=true", "hardliner"],
            params={"max_rounds": 2}))
        system = stub.completion_requests[0].messages[0]["content"]
    assert "Never propose one either." in system and "never propose one" in system
    check_golden(HERE / "negotiator_floor_rule_system.txt", system + "\n")


def test_mediator_and_stagnation_scorer_prompts(stub_env: Any) -> None:
    mediator = ScriptedPolicy(['<PROPOSAL>{"alice_share": 5}</PROPOSAL>'
                               "<RATIONALE>split the difference</RATIONALE>"], cycle=True)
    with StubServer(policies={"o3": mediator, "haiku": "stagnation"}) as stub:
        stub_env(stub)
        asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"], params={
            "max_rounds": 8, "mediator": "llm:openai-api/stub/o3",
            "stagnation": "llm:openai-api/stub/haiku", "stagnation_measure": "issues",
            "stagnation_order": "mediator-first"}))
        reqs = stub.completion_requests
    assert_no_stub_blocks(reqs)
    scorer = [r for r in reqs if r.model == "haiku"]
    med = [r for r in reqs if r.model == "o3"]
    check_golden(HERE / "stagnation_scorer.txt", render_chat(scorer[0].messages))
    check_golden(HERE / "mediator.txt", render_chat(med[0].messages))
    body = json.dumps([r.messages for r in scorer + med])
    assert "0.2" not in body and "weight" not in body  # offers only, never utilities
