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


class _Recorder:
    """A boulware negotiator that notes the budget on each observation it is handed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: list[tuple[int, int | None]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def act(self, obs: Any) -> Any:
        self.seen.append((obs.attempt, obs.max_attempts))
        return await self.inner.act(obs)


def test_every_observation_carries_the_budget_from_the_first_attempt() -> None:
    from accord.domains.bargaining import build_agents
    from accord.protocols import AlternatingOffers, Bounds, run_episode

    sc = resolve_scenario("buyer-seller")
    agents = {p: _Recorder(a) for p, a in build_agents(sc, ["boulware", "boulware"], 0).items()}
    for retries, budget in ((2, 3), (0, 1)):
        for a in agents.values():
            a.seen.clear()
        res = asyncio.run(run_episode(AlternatingOffers(sc), agents,  # type: ignore[arg-type]
                                      bounds=Bounds(max_rounds=4, max_retries=retries)))
        seen = [s for a in agents.values() for s in a.seen]
        assert res.rounds > 0 and seen
        assert set(seen) == {(1, budget)}
