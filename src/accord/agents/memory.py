"""What an LLM party remembers from earlier episodes of a series (issue 29).

:func:`accord.bench.series.run_series` sets :data:`MEMORY` around each episode: per party
role, the text it carries (summaries of its earlier episodes, as that party observed them,
and a critic's feedback). Every LLM session a party opens (:meth:`~accord.agents.llm_base.
LLMConversation.open_session`: negotiators, Deal-or-No-Deal chats, deliberation modules)
gets it after its own system prompt, rendered from ``prompts/memory.j2``. Code strategies
do not read it: their behaviour is their code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

from accord.agents.templates import render


@dataclass(frozen=True)
class Memory:
    """One party's memory: a line per earlier episode and the critic's latest feedback."""

    episodes: tuple[str, ...] = ()
    feedback: str | None = None

    def text(self) -> str:
        """The memory block added to the party's system prompt ('' when empty)."""
        if not self.episodes and not self.feedback:
            return ""
        return render("memory.j2", episodes=list(self.episodes), feedback=self.feedback)


#: per role, what the party remembers in the episode running in this context
MEMORY: ContextVar[Mapping[str, Memory] | None] = ContextVar("accord_memory", default=None)


def with_memory(system: str, agent: str) -> str:
    """``system`` with the memory of the party behind session label ``agent`` (``role``
    or ``role/module``), when the running episode has one for it."""
    memory = MEMORY.get()
    if not memory:
        return system
    found = memory.get(agent.split("/", 1)[0])
    block = found.text() if found is not None else ""
    return f"{system}\n\n{block}" if block else system


def recent(lines: Sequence[str], keep: int) -> tuple[str, ...]:
    """The last ``keep`` episode lines (all when ``keep`` is 0)."""
    return tuple(lines[-keep:] if keep > 0 else lines)


__all__ = ["MEMORY", "Memory", "recent", "with_memory"]
