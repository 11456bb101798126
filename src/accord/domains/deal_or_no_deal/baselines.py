"""Code baselines for Deal or No Deal: a greedy self-interested agent and a human replay.

* :class:`GreedyAgent` always proposes to take every item it values (items worth nothing to
  it go to the partner) and accepts only offers worth at least ``accept_share`` of its
  total value - or, on the very last turn, any offer worth more than nothing.
* :class:`HumanReplayAgent` plays back one side of a recorded human dialogue: its
  utterances in order, then the human outcome. It accepts any offer at least as good for
  it as its human share, proposes that share once its lines run out, and walks away when
  the humans did not agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.agents.base import Agent
from accord.core.moves import Accept, Message, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal.deal_tag import format_deal_body, package_of, share_of
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.rules import utility
from accord.protocols.base import Observation


def _propose(obs: Any, share: Sequence[int], text: str) -> Move:
    offer = Offer(package_of(share, obs.items), message=text)
    return Reject(counter=offer) if obs.offer is not None else offer


class GreedyAgent(Agent):
    """Self-interested: claims everything of value, never concedes in its proposals."""

    name = "greedy"

    def __init__(self, accept_share: float = 0.6) -> None:
        if not 0 <= accept_share <= 1:
            raise ValueError(f"accept_share must lie in [0, 1], got {accept_share}")
        self.accept_share = accept_share
        self.reset()

    def decide(self, obs: Any) -> Move:
        """Accept a good enough offer, otherwise claim every valued item."""
        total = utility(obs.values, obs.counts)
        if obs.offer_for_you is not None:
            got = utility(obs.values, share_of(obs.offer_for_you, obs.items))
            if got >= self.accept_share * total or (obs.last_turn and got > 0):
                return Accept()
        share = tuple(c if v > 0 else 0 for c, v in zip(obs.counts, obs.values, strict=True))
        return _propose(obs, share, f"I take {format_deal_body(package_of(share, obs.items))}")

    async def act(self, observation: Observation) -> Move:
        """See :meth:`decide`."""
        return self.decide(observation)


class HumanReplayAgent(Agent):
    """Plays back one side (``role``) of a datapoint's human dialogue and outcome."""

    name = "dataset-human"

    def __init__(self, datapoint: Datapoint, role: str) -> None:
        if role not in ("alice", "bob"):
            raise ValueError(f"role must be 'alice' or 'bob', got {role!r}")
        self.datapoint = datapoint
        self.role = role
        self.lines = [t.text for t in datapoint.turns if t.speaker == role]
        out = datapoint.outcome
        self.share = None if not out.agreed else (out.alice if role == "alice" else out.bob)
        self.reset()

    def reset(self, rng: Any = None) -> None:
        """Start the script from the first line."""
        super().reset(rng)
        self.next_line = 0

    def decide(self, obs: Any) -> Move:
        """Next human line, then the human outcome."""
        target = None if self.share is None else utility(obs.values, self.share)
        offered = None if obs.offer_for_you is None else share_of(obs.offer_for_you, obs.items)
        if offered is not None and target is not None and utility(obs.values, offered) >= target:
            return Accept()
        if self.next_line < len(self.lines):
            self.next_line += 1
            return Message(self.lines[self.next_line - 1] or "...")
        if self.share is None:
            return Walk(reason=f"the humans ended without a deal ({self.datapoint.outcome.kind})")
        return _propose(obs, self.share, "as agreed")

    async def act(self, observation: Observation) -> Move:
        """See :meth:`decide`."""
        return self.decide(observation)
