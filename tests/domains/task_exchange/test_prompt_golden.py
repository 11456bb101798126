"""Golden Figure 7 prompts (seed 000) as the endpoint receives them, captured at the stub.

The endpoints are named like real models and routed to the stub's rule-based policy: the
standing prompt and the turns are Figure 7's text and nothing else (no ``<TX_SETUP>`` /
``<TX_STATE>``; those come only with the named option ``state=true``).
Regenerate with ``ACCORD_UPDATE_GOLDEN=1`` after a legitimate prompt change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.task_exchange import DOMAIN
from accord.domains.task_exchange.stub import TaskExchangePolicy
from accord.testing.golden import assert_no_stub_blocks, check_golden, render_chat
from accord.testing.stub import StubServer

HERE = Path(__file__).parent / "golden"


async def _run(agents: list[str], strategy: str) -> None:
    spec = EpisodeSpec("task-exchange", "competitive",
                       tuple(parse_agent_spec(a) for a in agents), {"strategy": strategy}, 0)
    await DOMAIN.run_episode(spec, RunContext(llm={}))


@pytest.mark.parametrize("strategy", ["utility-aware", "baseline"])
async def test_figure_7_sessions(stub_env: Any, strategy: str) -> None:
    policies = {"gpt-4o": "task-exchange", "sloppy-model": TaskExchangePolicy(mistakes="OVL")}
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        await _run(["llm:openai-api/stub/gpt-4o", "llm:openai-api/stub/sloppy-model"],
                   strategy)
        reqs = stub.completion_requests
    assert_no_stub_blocks(reqs)
    alice = [r for r in reqs if r.model == "gpt-4o"]
    bob = [r for r in reqs if r.model == "sloppy-model"]
    # Alice's session after three calls: the standing prompt, Turn 1, a proposal, an answer
    check_golden(HERE / f"alice_{strategy}.txt", render_chat(alice[2].messages))
    retries = [r for r in bob if "was invalid" in r.messages[-1]["content"]]
    if strategy == "baseline":  # B.1: the baseline checks a proposal only when accepted
        assert not retries
    else:  # Bob's first proposal overlapped (OVL): the retry within the turn
        check_golden(HERE / "bob_retry.txt", render_chat(retries[0].messages[1:]))
    assert ("5. Be strategic:" in alice[0].messages[0]["content"]) == \
        (strategy == "utility-aware")
