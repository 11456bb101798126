"""The person's view of a task exchange (seed 000): their own utility table, the table.

A person builds a proposal from the composite task list: the composite they keep and the
one their partner gets (by bit mask, e.g. ``000111``, or by its listed description). The
protocol validates it like any agent's proposal (B.2): an overlap, a gap or an unlisted
task comes back as its targeted feedback and the person is asked again. The view shows
the person's *own* utilities only, never the partner's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.brief import make_brief, num, rounds_left, table
from accord.agents.human.replies import malformed, reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Message, Move
from accord.domains.task_exchange.masks import parse_mask
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.domains.task_exchange.scenario import PrivateView
from accord.protocols.base import Observation


def _obs(obs: Observation) -> TaskExchangeObservation:
    if not isinstance(obs, TaskExchangeObservation) or obs.view is None:
        raise TypeError(f"the task-exchange human view needs a TaskExchangeObservation, got "
                        f"{type(obs).__name__}")
    return obs


def composite(raw: Any, view: PrivateView) -> str:
    """The composite description a person named: a bit mask (``000111``), a listed
    description, or (for the protocol to refuse with its feedback) the text as typed."""
    text = " ".join(str(raw if raw is not None else "").split())
    n = view.universe.n
    if len(text) == n and set(text) <= {"0", "1"}:
        return view.universe.description(parse_mask(text, n))
    return text


def mask_of(raw: Any, view: PrivateView) -> int | None:
    """The mask a person named (bits or a listed description), ``None`` if not listed."""
    return view.universe.mask_of(composite(raw, view))


def read_split(raw: Any, view: PrivateView) -> dict[str, str] | str:
    """``{role: description}`` for both roles from ``{"mine": ..., "theirs": ...}`` (or
    keyed by role names); an error text when a side is missing."""
    if not isinstance(raw, Mapping):
        return "a proposal names the composite you keep and the one your partner gets"
    mine = raw.get("mine", raw.get(view.role))
    theirs = raw.get("theirs", raw.get(view.partner))
    if not str(mine or "").strip() or not str(theirs or "").strip():
        return "a proposal needs a composite task for you and one for your partner"
    return {view.role: composite(mine, view), view.partner: composite(theirs, view)}


class TaskExchangeView(HumanView):
    """Own utility table, original tasks, the proposal on the table, the public history."""

    domain = "task-exchange"

    def __init__(self, title: str = "") -> None:
        self.title = title

    def brief(self, o: TaskExchangeObservation) -> dict[str, Any]:
        """The person's private brief: their preferences over every composite task."""
        v = o.view
        assert v is not None
        uni = v.universe
        own = v.own_initial
        rows = [[uni.fmt(m), uni.description(m), num(float(v.utility(m)))]
                for m in sorted(range(1, uni.full), key=lambda m: (-v.utility(m), m))]
        atomic = [[str(a.bit), a.label] for a in uni.atomic]
        return make_brief(
            self.title or "Task exchange",
            f"{v.preference} You and {v.partner} each hold a main task; you may exchange "
            "atomic tasks so that each of you ends up with a composite task you prefer. "
            "A proposal splits all the atomic tasks between the two of you: every task to "
            "exactly one of you, nobody empty-handed. Without an agreement each of you "
            "keeps the original main task.",
            [("You are", v.role), ("Against", v.partner),
             ("Your original task", f"{uni.fmt(own)}: {uni.description(own)}"),
             (f"{v.partner}'s original task",
              f"{uni.fmt(v.initial[v.partner])}: {uni.description(v.initial[v.partner])}"),
             ("No deal (BATNA): your utility of your original task",
              num(float(v.utility(own)))),
             ("Turns left", rounds_left(o.round, o.turn_limit))],
            [table("Your utility of every composite task (best first); bits are the atomic "
                   "tasks, rightmost = task 0", ["mask", "composite task", "your utility"],
                   rows, "preferences"),
             table("Atomic tasks", ["bit", "task"], atomic, "atomic")])

    def _split(self, o: TaskExchangeObservation,
               assignment: Mapping[str, Any] | None) -> dict[str, Any] | None:
        v = o.view
        assert v is not None
        if assignment is None:
            return None
        out: dict[str, Any] = {}
        for key, role in (("yours", v.role), ("theirs", v.partner)):
            descs = list(assignment.get(role, ()))
            m = v.universe.mask_of(descs[0]) if len(descs) == 1 else None
            out[key] = {"description": "; ".join(map(str, descs)),
                        "mask": None if m is None else v.universe.fmt(m)}
        mine = out["yours"]["mask"]
        out["utility"] = None if mine is None else round(
            float(v.utility(parse_mask(mine, v.universe.n))), 4)
        return out

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)
        v = o.view
        assert v is not None
        uni = v.universe
        return {
            "domain": self.domain, "role": v.role, "partner": v.partner, "phase": o.phase,
            # the record's turn (the turn of the proposal on the table, or being made)
            "turn": o.round, "turn_limit": o.turn_limit, "final_response": o.final_response,
            "last_proposal": o.last_proposal, "strategy": o.strategy,
            "brief": self.brief(o),
            "composites": [{"mask": uni.fmt(m), "description": uni.description(m),
                            "utility": round(float(v.utility(m)), 4)}
                           for m in range(1, uni.full)],
            "original": {"yours": uni.fmt(v.own_initial),
                         "theirs": uni.fmt(v.initial[v.partner])},
            "batna": round(float(v.utility(v.own_initial)), 4),
            "table": self._split(o, o.table),
            "history": [{"turn": h.turn, "speaker": h.speaker, "kind": h.kind,
                         "text": h.text, "split": self._split(o, h.proposal)}
                        for h in o.history],
        }

    def evaluate(self, obs: Observation) -> Callable[[Mapping[str, Any]], float | None]:
        o = _obs(obs)
        v = o.view
        assert v is not None

        def score(raw: Mapping[str, Any]) -> float | None:
            m = mask_of(raw.get("mine", raw.get(v.role)), v)
            return None if m is None else round(float(v.utility(m)), 4)
        return score

    def move(self, obs: Observation, reply: Reply) -> Move:
        o = _obs(obs)
        v = o.view
        assert v is not None
        if o.phase == "consider":  # the private first turn: a note to oneself, never sent
            if isinstance(reply, Mapping) and reply.get("kind") in ("message", "continue"):
                return Message("")
            return malformed("Turn 1 is private consideration: continue (nothing is sent)",
                             reply)
        return reply_to_move(reply, lambda raw: read_split(raw, v))


__all__ = ["TaskExchangeView", "composite", "mask_of", "read_split"]
