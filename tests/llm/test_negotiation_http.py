"""Whole negotiations over real HTTP with the rule-based negotiator policy.

Two sessions (seller, buyer) talk to ``openai-api/stub/negotiator`` through accord's
client. Each session's system prompt states its private utility once; each turn appends
one user message ("Round r of R. ... Your move: ...") and the assistant's reply, the way
the LLM negotiator does (rendered with accord's own bargaining prompt templates; the
stub reads that text, see accord.domains.bargaining.stub).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from accord.agents.negotiator_prompts import system_text, turn_text
from accord.llm import CallScope, LLMClient, LLMRuntime
from accord.testing.stub import StubServer

PRICES = [100, 120, 140, 160, 180]
ISSUES = {"price": PRICES, "delivery": ["1w", "2w", "4w"]}


def _utility(price_scores: list[float], delivery: dict[str, float], batna: float
             ) -> dict[str, Any]:
    return {"issues": ISSUES, "weights": {"price": 0.7, "delivery": 0.3},
            "values": {"price": {str(p): s for p, s in zip(PRICES, price_scores, strict=True)},
                       "delivery": delivery}, "batna": batna}


SELLER = _utility([0.0, 0.25, 0.5, 0.75, 1.0], {"1w": 0.0, "2w": 0.6, "4w": 1.0}, 0.3)
BUYER = _utility([1.0, 0.75, 0.5, 0.25, 0.0], {"1w": 1.0, "2w": 0.5, "4w": 0.0}, 0.3)


def _score(u: dict[str, Any], offer: dict[str, Any]) -> float:
    return sum(u["weights"][k] * u["values"][k][str(v)] for k, v in offer.items())


def _parse(text: str) -> tuple[str, dict[str, Any] | None]:
    public = re.sub(r"<CONSIDER>.*?</CONSIDER>", "", text, flags=re.S)
    m = re.search(r"<PROPOSAL>(.*?)</PROPOSAL>", public, re.S)
    offer = json.loads(m.group(1)) if m else None
    for tag in ("ACCEPT", "WALK", "REJECT"):
        if f"<{tag}/>" in public:
            return tag.lower(), offer
    return "propose", offer


async def _negotiate(client: LLMClient, utilities: dict[str, dict[str, Any]], episode: str,
                     max_rounds: int = 8) -> tuple[str, dict[str, Any] | None, list[Any]]:
    sessions = {role: [{"role": "system", "content": system_text(
                    role, [r for r in utilities if r != role], ISSUES, u, u["batna"],
                    max_rounds)}]
                for role, u in utilities.items()}
    last: dict[str, dict[str, Any] | None] = {role: None for role in utilities}
    order = list(utilities)
    offer: dict[str, Any] | None = None
    completions = []
    for turn in range(2 * max_rounds):
        role = order[turn % 2]
        rnd = turn // 2 + 1
        other = order[(turn + 1) % 2]
        prompt = turn_text(rnd, max_rounds, "propose" if offer is None else "respond", offer,
                           other if offer is not None else None)
        sessions[role].append({"role": "user", "content": prompt})
        done = await client.complete(sessions[role], scope=CallScope(episode, role, turn))
        completions.append(done)
        sessions[role].append({"role": "assistant", "content": done.text})
        kind, proposal = _parse(done.text)
        if kind == "accept":
            return "agreement", offer, completions
        if kind == "walk":
            return "walk", None, completions
        offer = last[role] = proposal
    return "bound_hit", None, completions


async def test_two_rule_based_parties_reach_a_sensible_deal(stub_env: Callable[..., None]
                                                            ) -> None:
    with StubServer() as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            status, deal, calls = await _negotiate(rt.client("openai-api/stub/negotiator"),
                                                   {"seller": SELLER, "buyer": BUYER}, "ep-1")
    assert status == "agreement" and deal is not None
    assert _score(SELLER, deal) >= SELLER["batna"] and _score(BUYER, deal) >= BUYER["batna"]
    assert 2 < len(calls) <= 16
    # append-only sessions: from its second call on, each party's prompt is mostly cached
    later = [c for c in calls[2:]]
    assert all(c.usage.cached_tokens > 0.6 * c.usage.prompt_tokens for c in later)
    assert len(stub.completion_requests) == len(calls)


async def test_no_zone_of_agreement_ends_in_a_walk(stub_env: Callable[..., None]) -> None:
    greedy_seller = dict(SELLER, batna=0.9)
    greedy_buyer = dict(BUYER, batna=0.9)
    with StubServer() as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            status, deal, calls = await _negotiate(rt.client("openai-api/stub/negotiator"),
                                                   {"seller": greedy_seller,
                                                    "buyer": greedy_buyer}, "ep-2", max_rounds=4)
    assert status == "walk" and deal is None
    assert len(calls) <= 8
