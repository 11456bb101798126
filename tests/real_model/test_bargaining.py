"""A real model (SmolLM2-135M-Instruct on llama.cpp) negotiates with structured output.

Free-form, this model gave no parseable move in 80+ calls (issue 25); with the turn's
reply schema enforced by the server, every reply must be a legal move and the episode must
end cleanly. Episodes are kept short (two rounds, small replies, one slot): the model
decodes about 1-10 tokens/s on two CPU cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.domains.bargaining import resolve_scenario, run_negotiation

from .conftest import CALL_TIMEOUT

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("mode", ["auto", "grammar"])
async def test_every_reply_of_the_real_model_is_a_legal_move(gguf: Path, mode: str) -> None:
    # 512 tokens: the longest reply the grammar admits in ordinary text (see test_domains)
    spec = f"llm:llamacpp/{gguf}?structured={mode}&max_tokens=512&temperature=0.7"
    res = await run_negotiation(resolve_scenario("buyer-seller"), [spec, "boulware"],
                                params={"max_rounds": 2}, seed=0,
                                ctx={"llm": {"timeout": CALL_TIMEOUT}})
    assert res.status in ("agreement", "no_deal"), (res.status, res.reason)
    events = list(res.trajectory)
    calls = [e for e in events if e.kind == "note" and e.reason == "llm_call"]
    invalid = [e for e in events if e.kind == "invalid" and e.party == "buyer"]
    moves = [e for e in events if e.kind == "move" and e.party == "buyer"]
    assert calls, "the model was never asked"
    assert not invalid, [(e.reason, e.feedback) for e in invalid]
    assert len(moves) == len(calls)  # every call gave one legal move
    assert all(isinstance(c.data.get("seed"), int) for c in calls)
