"""The engine drains agents' notes after each attempt, and skips agents that have none."""

from __future__ import annotations

import asyncio
from typing import Any

from accord.agents.concession import TimeBasedAgent
from accord.domains.bargaining import resolve_scenario
from accord.protocols.agent import Agent
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, _has_notes, run_episode


class _Noting(TimeBasedAgent):
    """A Boulware agent that notes each of its moves (a subclass override)."""

    def __init__(self) -> None:
        super().__init__(0.2, "noting")
        self.pending: list[dict[str, Any]] = []

    async def act(self, observation: Any) -> Any:
        move = await super().act(observation)
        self.pending.append({"name": "acted", "data": {"round": observation.round}})
        return move

    def drain_notes(self) -> list[dict[str, Any]]:
        out, self.pending = self.pending, []
        return out


def test_only_agents_with_their_own_drain_notes_are_drained() -> None:
    plain = TimeBasedAgent(0.2, "boulware")
    assert not _has_notes(plain)
    assert _has_notes(_Noting())
    patched = TimeBasedAgent(0.2, "boulware")
    patched.drain_notes = lambda: [{"name": "x"}]  # type: ignore[method-assign]
    assert _has_notes(patched)  # an instance override counts too


def test_notes_are_logged_in_the_round_they_were_made() -> None:
    scenario = resolve_scenario("buyer-seller")
    protocol = AlternatingOffers(scenario, AlternatingConfig(max_rounds=6))
    a, b = scenario.party_names
    agents: dict[str, Agent] = {a: _Noting(), b: TimeBasedAgent(0.2, "boulware")}
    res = asyncio.run(run_episode(protocol, agents, bounds=Bounds(max_rounds=6)))
    noted = [e for e in res.trajectory if e.kind == "note" and e.reason == "acted"]
    moved = [e for e in res.trajectory if e.kind == "move" and e.party == a]
    assert noted and len(noted) == len(moved)
    assert [e.round for e in noted] == [e.round for e in moved]
    assert all(e.party == a and e.data["round"] == e.round for e in noted)
    # each note is logged before the move it came with
    assert all(n.seq < m.seq for n, m in zip(noted, moved, strict=True))
