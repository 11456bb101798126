"""Golden scaffold prompts (seed 001, Tables 10-13) as the endpoint receives them.

One menu-numeric deliberation and one task allocation with tools, captured at the stub
server with the endpoints named like real models: each module session (observation,
planning, decision, conversation) is pinned exactly. The step's data is stated in words,
as the seed's module templates state it; no ``<STATE>`` block reaches an endpoint.
Regenerate with ``ACCORD_UPDATE_GOLDEN=1`` after a legitimate prompt change.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import DOMAIN
from accord.domains.deliberation.stub import read_setup, step_module
from accord.testing.golden import assert_no_stub_blocks, check_golden, render_chat
from accord.testing.stub import StubServer

HERE = Path(__file__).parent / "golden"


def module_of(request: Any) -> str:
    return step_module(request.messages[0]["content"]) or ""


@pytest.mark.parametrize("setting, agents, tools", [
    ("menu-numeric", 2, False), ("task-allocation", 3, True)])
def test_module_sessions(stub_env: Any, setting: str, agents: int, tools: bool) -> None:
    with StubServer(policies={"gpt-4.1": "deliberation"}) as stub:
        stub_env(stub)
        spec = EpisodeSpec("deliberation", setting, tuple(parse_agent_list(
            ",".join(["llm:openai-api/stub/gpt-4.1"] * agents))),
            {"instance": 1, "tools": tools, "max_rounds": 3}, 0)
        res = asyncio.run(DOMAIN.run_episode(spec, RunContext(llm={})))
        reqs = stub.completion_requests
    assert res.status != "error", res.detail
    assert_no_stub_blocks(reqs)
    # agent_0's module sessions, each as of its last call (the whole session so far)
    last: dict[str, Any] = {}
    for r in reqs:
        if read_setup(r.messages[0]["content"]).role == "agent_0":
            last[module_of(r)] = r
    assert set(last) >= {"observation", "planning", "conversation"}
    for module, r in sorted(last.items()):
        check_golden(HERE / f"{setting}_{module}.txt", render_chat(r.messages))
