"""The retry budget has one source, the engine's ``Bounds``: the prompt an LLM agent gets
after an invalid reply quotes it (issue 13: ``max_retries=1`` used to say "attempt 2 of 6")."""

from __future__ import annotations

import asyncio
from typing import Any

from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.stub import StubServer


def test_the_feedback_prompt_quotes_the_engines_budget(stub_env: Any) -> None:
    with StubServer(policies={"sloppy": "always-malformed"}) as stub:
        stub_env(stub)
        res = asyncio.run(run_negotiation(
            resolve_scenario("buyer-seller"), ["llm:openai-api/stub/sloppy", "boulware"],
            params={"max_retries": 1}, seed=0))
        texts = [r.messages[-1]["content"] for r in stub.completion_requests]
    assert res.status == "error"
    assert len(texts) == 2  # the first reply and one retry: Bounds(max_retries=1)
    assert "attempt 2 of 2" in texts[1]
    assert "of 6" not in texts[1]
