"""A scripted agent that produces each invalid-proposal pattern on demand.

It writes raw reply text, exactly as an LLM would, and turns it into a move with the
domain's reply parser, so the tag patterns (missing ``<PROPOSAL>`` / ``</PROPOSAL>``)
go through the same code path as real model output. Every reply carries a private
``<CONSIDER>`` note with a unique marker, so tests can check it is never forwarded.

A script is a list of steps, one per reply in the proposal phase (retries included):
the Table 2 codes ``UNK MAT OVL MPT MET MDA EMP`` (or their reason names), ``ok`` (a
valid reply from the fallback policy), ``accept``, ``reject`` (with the status-quo
counter-proposal) and ``keep`` (propose the status quo). ``OVL*6`` repeats a step.
After the script the ``then`` policy answers: ``status-quo`` (accept a split at least
as good as the original task, else counter with the originals), ``accept`` or ``keep``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Move
from accord.domains.task_exchange.llm.replies import format_proposal, parse_reply
from accord.domains.task_exchange.masks import bits_of
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.domains.task_exchange.scenario import PrivateView
from accord.domains.task_exchange.validation import PATTERNS
from accord.protocols.base import Observation

STEPS: tuple[str, ...] = (*PATTERNS.values(), "ok", "accept", "reject", "keep")
"""Valid script steps (pattern codes first)."""

POLICIES: tuple[str, ...] = ("status-quo", "accept", "keep")
"""Fallback policies once the script is used up."""

_REJECT = "<REJECT> This doesn't work for me. Let's try another allocation. </REJECT>"
_ACCEPT = "<ACCEPT> I agree with this allocation. </ACCEPT>"


def parse_script(text: str | Sequence[str]) -> list[str]:
    """Expand a script like ``"OVL*6+ok"`` (``+``, ``,`` or space separated) into steps."""
    parts = text.replace(",", "+").replace(" ", "+").split("+") if isinstance(text, str) \
        else list(text)
    by_reason = {reason: code for reason, code in PATTERNS.items()}
    out: list[str] = []
    for raw in parts:
        if not raw:
            continue
        name, _, times = raw.partition("*")
        step = by_reason.get(name.lower(), name.upper() if name.upper() in PATTERNS.values()
                             else name.lower())
        if step not in STEPS:
            raise ValueError(f"unknown script step {name!r}; use one of {', '.join(STEPS)} "
                             "or a pattern reason name")
        try:
            count = int(times) if times else 1
        except ValueError:
            raise ValueError(f"script step {raw!r}: repeat count must be an integer") from None
        if count < 1:
            raise ValueError(f"script step {raw!r}: repeat count must be at least 1")
        out.extend([step] * count)
    return out


class ScriptedAgent(Agent):
    """Replies from a fixed script of valid and invalid steps, through the text parser."""

    name = "scripted"

    def __init__(self, script: str | Sequence[str] = (), then: str = "status-quo") -> None:
        if then not in POLICIES:
            raise ValueError(f"unknown fallback policy {then!r}; use one of {', '.join(POLICIES)}")
        self.script = parse_script(script)
        self.then = then
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self._step = 0
        self._replies = 0
        self.sent: list[str] = []

    def secret(self, role: str, k: int) -> str:
        """The private marker written into reply ``k``'s ``<CONSIDER>`` block."""
        return f"SECRET-{role}-{k}"

    async def act(self, observation: Observation) -> Move:
        if not isinstance(observation, TaskExchangeObservation) or observation.view is None:
            raise TypeError("the scripted agent plays task-exchange only")
        obs = observation
        view = obs.view
        assert view is not None
        roles = (view.role, view.partner)
        self._replies += 1
        private = f"<CONSIDER>{self.secret(view.role, self._replies)}</CONSIDER>\n"
        if obs.phase == "consider":
            text = private + "I will start from my original task and see what my partner wants."
        else:
            step = self.script[self._step] if self._step < len(self.script) else None
            self._step += step is not None
            text = private + self._reply(step, obs, view, roles)
        self.sent.append(text)
        return parse_reply(text, roles, obs.phase)

    def _reply(self, step: str | None, obs: TaskExchangeObservation, view: PrivateView,
               roles: Sequence[str]) -> str:
        uni = view.universe
        me, other = view.role, view.partner
        mine, theirs = view.initial[me], view.initial[other]
        lead = _REJECT + "\n" if obs.phase == "respond" else ""
        status_quo = format_proposal({me: uni.description(mine),
                                      other: uni.description(theirs)}, roles)
        if step is None or step == "ok":
            step = self._policy(obs, view)
        if step == "accept":
            return _ACCEPT if obs.phase == "respond" else status_quo
        if step == "reject":
            return _REJECT + ("" if obs.final_response else "\n" + status_quo)
        if step == "keep":
            return lead + status_quo
        low = 1 << bits_of(mine)[0]
        asg: dict[str, list[str]]
        if step == "UNK":
            asg = {me: [uni.description(mine).rstrip(".") + " as soon as possible."],
                   other: [uni.description(theirs)]}
        elif step == "MAT":  # drop one atomic task from the larger side
            if mine ^ low:
                asg = {me: [uni.description(mine ^ low)], other: [uni.description(theirs)]}
            else:
                drop = 1 << bits_of(theirs)[0]
                asg = {me: [uni.description(mine)], other: [uni.description(theirs ^ drop)]}
        elif step == "OVL":
            asg = {me: [uni.description(mine)], other: [uni.description(theirs | low)]}
        elif step == "MDA":
            asg = {me: [uni.description(1 << b) for b in bits_of(mine)] or [],
                   other: [uni.description(theirs)]}
            if len(asg[me]) < 2:  # a one-task original cannot be split: split the partner's
                asg = {me: [uni.description(mine)],
                       other: [uni.description(1 << b) for b in bits_of(theirs)]}
        elif step == "EMP":
            asg = {me: [uni.description(uni.full)], other: []}
        else:
            body = json.dumps({me: [uni.description(mine)], other: [uni.description(theirs)]},
                              indent=2)
            if step == "MPT":
                return lead + body
            return lead + "<PROPOSAL>" + body  # MET
        return lead + format_proposal(asg, roles)

    def _policy(self, obs: TaskExchangeObservation, view: PrivateView) -> str:
        if obs.phase != "respond":
            return "keep"
        if self.then == "accept":
            return "accept"
        if self.then == "keep":
            return "reject"
        descs = (obs.table or {}).get(view.role, ())
        mask = view.universe.mask_of(descs[0]) if len(descs) == 1 else None
        if mask is not None and view.utility(mask) >= view.utility(view.own_initial):
            return "accept"
        return "reject"


__all__ = ["POLICIES", "STEPS", "ScriptedAgent", "parse_script"]
