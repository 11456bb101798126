"""Termination judges (seed 002): decide STOP or CONTINUE after each step.

A judge is never a party: it sees the protocol's public view, the protocol's own
termination verdict and the bound state. The default :class:`RuleJudge` follows the
protocol's rules exactly; an LLM judge (``accord.agents.llm``) plugs in through the
same interface. The engine only honours ``agreement`` when the protocol confirms it.
A judge that cannot decide (its endpoint fails, its reply cannot be read) raises; the
engine turns that into an ``error`` record with ``who="judge"``, as it does for agents.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from accord.protocols.base import Termination

Decision = Literal["continue", "agreement", "no_deal"]
DECISIONS: tuple[Decision, ...] = ("continue", "agreement", "no_deal")
"""Every decision a judge may return."""

JUDGE = "judge"
"""The role name a judge's failure is recorded under (``who`` of an ``error`` record)."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """The judge's decision and its reason."""

    decision: Decision
    reason: str = ""


class TerminationJudge(ABC):
    """Decides whether the protocol has terminated."""

    name: str = "judge"

    @abstractmethod
    async def judge(
        self, view: dict[str, Any], proposed: Termination | None, bounds: dict[str, Any]
    ) -> JudgeVerdict:
        """Verdict on the latest step given the public view and the protocol's own verdict."""

    def usage(self) -> dict[str, Any]:
        """Token usage and cost of the judge in its episode (empty for code judges)."""
        return {}


class RuleJudge(TerminationJudge):
    """The rule-based default: unanimous accept -> agreement; walk or bound -> no deal."""

    name = "rules"

    async def judge(
        self, view: dict[str, Any], proposed: Termination | None, bounds: dict[str, Any]
    ) -> JudgeVerdict:
        if proposed is None:
            return JudgeVerdict("continue", "protocol continues")
        if proposed.status == "agreement":
            return JudgeVerdict("agreement", "all required parties accepted")
        return JudgeVerdict("no_deal", proposed.reason or "no deal")
