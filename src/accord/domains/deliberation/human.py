"""The person's view of a deliberation (seed 001): shared rules, *their own* observation,
the dialog, and the moves the protocol allows now.

A person talks (``message``), proposes (``offer``: a menu of dishes, or an allocation of
every task to an agent), accepts the proposal on the table, or -- as the leader of a task
allocation -- makes the final decision (``decide``). The protocol checks a proposal's shape
(known dishes, tasks and agents) and sends its feedback back to the person. The view holds
only the person's own private observation, never a teammate's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.brief import Cell, make_brief, num, rounds_left, table
from accord.agents.human.replies import malformed, reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Decide, Move
from accord.domains.deliberation.protocol import DeliberationObservation
from accord.protocols.base import Observation

SETTINGS_TEXT = {
    "menu-numeric": "Plan a dinner menu with your teammate for the guests. A dish can be "
                    "served only if the kitchen holds every ingredient its recipe needs "
                    "(ingredients are shared across dishes); the team scores the guests' "
                    "ratings of the dishes served. You see only part of the kitchen and "
                    "the ratings of only some guests: share what you know.",
    "menu-semantic": "Plan a dinner menu with your teammate for the guests. A dish can be "
                     "served only if the kitchen holds every ingredient its recipe needs; "
                     "the team scores how well the menu suits the guests. You see only part "
                     "of the kitchen and parts of the guests' profiles: share what you know.",
    "task-allocation": "Assign every task to one team member. A task needs resources; each "
                       "member has private resources and an efficiency per task, and the "
                       "public resources are split in fragments nobody sees whole. The team "
                       "scores the efficiency of a feasible allocation. The leader makes "
                       "the final decision.",
}


def _obs(obs: Observation) -> DeliberationObservation:
    if not isinstance(obs, DeliberationObservation):
        raise TypeError(f"the deliberation human view needs a DeliberationObservation, got "
                        f"{type(obs).__name__}")
    return obs


def _flat(value: Any) -> str:
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_flat(v) for v in value)
    return num(value) if isinstance(value, float) else str(value)


def _tables(o: DeliberationObservation) -> list[dict[str, Any]]:
    """Shared rules and the person's own observation as tables."""
    sh, pr = o.shared, o.private
    out: list[dict[str, Any]] = []
    if o.setting == "task-allocation":
        reqs = sh.get("requirements", {})
        out.append(table("Tasks and what each needs (shared)", ["task", "needs"],
                         [[t, _flat(reqs.get(t, {}))] for t in sh.get("tasks", [])], "shared"))
        for agent, res in (pr.get("private_resources") or {}).items():
            out.append(table(f"Private resources of {agent} (only you see them)",
                             ["resource", "amount"], [[k, num(v)] for k, v in res.items()],
                             "preferences"))
        for agent, eff in (pr.get("efficiency") or {}).items():
            out.append(table(f"Efficiency of {agent} per task (only you see it)",
                             ["task", "efficiency"], [[k, num(v)] for k, v in eff.items()],
                             "efficiency"))
        whole = "the totals" if pr.get("public_is_total") else "your fragment of the totals"
        out.append(table(f"Public resources: {whole}", ["resource", "amount"],
                         [[k, num(v)] for k, v in (pr.get("public_resources") or {}).items()],
                         "public"))
        return out
    recipes = sh.get("recipes", {})
    out.append(table("Candidate dishes and their recipes (shared)", ["dish", "needs"],
                     [[d, _flat(recipes.get(d, {}))] for d in sh.get("dishes", [])], "shared"))
    out.append(table("Ingredients you can see in the kitchen (only you)",
                     ["ingredient", "in stock"],
                     [[k, num(v)] for k, v in (pr.get("ingredients") or {}).items()],
                     "preferences"))
    scores = pr.get("guest_scores") or {}
    if scores:
        guests = list(scores)
        rows: list[list[Cell]] = [[d, *[num(scores[g].get(d)) for g in guests]]
                                  for d in sh.get("dishes", [])]
        out.append(table("Ratings you can see (guest x dish)", ["dish", *guests], rows,
                         "ratings"))
    for guest, fields in (pr.get("guests") or {}).items():
        out.append(table(f"What you know about {guest}", ["field", "value"],
                         [[k, _flat(v)] for k, v in fields.items()], "persona"))
    return out


def read_proposal(raw: Any, o: DeliberationObservation) -> dict[str, Any] | str:
    """A proposal from a reply, as an offer's package: a menu as ``{dish: 1}`` for the
    dishes marked ``1`` (or listed), an allocation as ``{task: agent}`` with unassigned
    tasks left out; an error text when there is nothing to read. The protocol's
    normaliser judges the rest (unknown dishes, tasks or agents) with its feedback."""
    if o.setting != "task-allocation":
        if isinstance(raw, Mapping):
            return {str(d): 1 for d, flag in raw.items()
                    if str(flag).strip().lower() in ("1", "on", "true", "yes")}
        if isinstance(raw, list | tuple):
            return {str(d): 1 for d in raw}
        return "a menu proposal lists the dishes to serve"
    if isinstance(raw, Mapping):
        return {str(t): str(a).strip() for t, a in raw.items() if str(a).strip()}
    return "an allocation proposal gives each task to an agent (TASK=AGENT)"


class DeliberationView(HumanView):
    """Shared instance rules, own observation, the dialog and the proposal on the table."""

    domain = "deliberation"

    def brief(self, o: DeliberationObservation) -> dict[str, Any]:
        """The person's private brief: the task, what they alone observe, the rules."""
        mates = [p for p in o.parties if p != o.role]
        if o.mode == "leader":
            rule = (f"the leader {o.leader} decides (you are the leader)"
                    if o.leader == o.role else f"the leader {o.leader} decides")
        elif o.mode == "single":
            rule = "you decide alone"
        else:
            rule = "a proposal is adopted when every teammate accepts it"
        return make_brief(
            o.setting, SETTINGS_TEXT.get(o.setting, ""),
            [("You are", o.role), ("Teammates", ", ".join(mates) or "none"),
             ("How it ends", rule), ("Rounds left", rounds_left(o.round, o.max_rounds)),
             ("Longest message", f"{o.max_chars} characters")],
            _tables(o))

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)
        sh = o.shared
        return {
            "domain": self.domain, "role": o.role, "round": o.round,
            "max_rounds": o.max_rounds, "setting": o.setting, "mode": o.mode,
            "leader": o.leader, "parties": list(o.parties), "brief": self.brief(o),
            "dishes": list(sh.get("dishes", [])), "tasks": list(sh.get("tasks", [])),
            "agents": list(sh.get("agents", o.parties)),
            "dialog": [u.to_dict() for u in o.dialog],
            "current": None if o.current is None else {"by": o.current[0],
                                                       "proposal": o.current[1]},
            "accepted_by": sorted(o.accepted_by), "max_chars": o.max_chars,
        }

    def move(self, obs: Observation, reply: Reply) -> Move:
        o = _obs(obs)
        if isinstance(reply, Mapping) and reply.get("kind") == "decide":
            raw = reply.get("package")
            if raw is None and o.current is not None:
                raw = o.current[1]  # deciding the proposal on the table
            if raw is None:
                return malformed("a decision needs a proposal: choose it first", reply)
            message = str(reply.get("message") or "").strip()[:2000] or None
            decision = read_proposal(raw, o)
            if isinstance(decision, str):
                return malformed(decision, reply)
            return Decide(decision, message)
        return reply_to_move(reply, lambda raw: read_proposal(raw, o))


__all__ = ["SETTINGS_TEXT", "DeliberationView", "read_proposal"]
