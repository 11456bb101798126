"""Replayed answers: a model's logged replies given back to the agent that asks again.

A forked episode (:mod:`accord.protocols.fork`) drives each seat through the parent's
rounds before the fork point so that the agent's own state (an LLM agent's conversation,
a strategy's memory and random stream) is what it would have been. An LLM agent's calls
in those turns are answered from the parent's trajectory, never from the network: the
fork puts a :class:`Replies` in :data:`REPLIES` around the agent's turn, and
:meth:`accord.llm.client.LLMClient.complete` takes its answer from there first.

The replies are what the parent logged (the public text of each ``llm_call`` note,
private reasoning already removed), in call order. A turn that asks for more answers
than were logged gets the ``fallback`` text (the logged move written in the agent's own
reply format) or, without one, a :class:`ReplayExhausted` error naming the party.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from contextvars import ContextVar

from accord.llm.types import CallScope, Completion, Usage


class ReplayExhausted(RuntimeError):
    """A replayed turn asked the model more often than the parent's log answered."""


class Replies:
    """The answers of one party's replayed turn, served in order (see the module doc)."""

    def __init__(self, party: str, texts: Iterable[str], fallback: str | None = None) -> None:
        self.party = party
        self.texts: deque[str] = deque(texts)
        self.fallback = fallback
        #: answers served so far (logged ones and fallbacks)
        self.served = 0

    def take(self, scope: CallScope | None) -> str:
        """The next answer for a call of this turn."""
        self.served += 1
        if self.texts:
            return self.texts.popleft()
        if self.fallback is not None:
            return self.fallback
        raise ReplayExhausted(
            f"the parent episode's log holds no model reply for {self.party}'s call "
            f"{self.served} in this turn, and the move cannot be written as a reply of "
            f"this agent kind {(scope.describe() if scope else '')}".rstrip())

    def completion(self, scope: CallScope | None, model: str, provider: str) -> Completion:
        """The next answer as a :class:`Completion` that cost nothing (``from_cache``)."""
        return Completion(self.take(scope), Usage(), 0.0, model, provider, "stop",
                          from_cache=True, attempts=0, extra={"replayed": True})


#: the replies of the turn being replayed in this task, if any
REPLIES: ContextVar[Replies | None] = ContextVar("accord_replayed_replies", default=None)


__all__ = ["REPLIES", "ReplayExhausted", "Replies"]
