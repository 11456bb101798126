"""A real model (SmolLM2-135M-Instruct on llama.cpp) plays a classic game with structured
output: one talk round and one action, each a legal move."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.agents.spec import parse_agent_spec
from accord.domains import EpisodeSpec, RunContext, get_domain

from .conftest import CALL_TIMEOUT

pytestmark = pytest.mark.slow


async def test_the_real_model_talks_and_plays_legal_moves(gguf: Path) -> None:
    llm = parse_agent_spec(f"llm:llamacpp/{gguf}?structured=grammar&max_tokens=200")
    spec = EpisodeSpec("games", "prisoners-dilemma", (llm, parse_agent_spec("rational")),
                       {"negotiation_rounds": 1}, 0)
    res = await get_domain("games").run_episode(
        spec, RunContext(llm={"timeout": CALL_TIMEOUT}))
    assert res.status == "completed", (res.status, res.reason, res.detail)
    events = list(res.trajectory)
    invalid = [e for e in events if e.kind == "invalid" and e.party == "Alice"]
    calls = [e for e in events if e.kind == "note" and e.reason == "llm_call"]
    assert not invalid, [(e.reason, e.feedback) for e in invalid]
    assert len(calls) == 2  # one message, one action
    assert res.record["profile"][0] in ("cooperate", "defect")
