"""A rule-based Deal-or-No-Deal party that answers accord's DoND LLM prompts (no model).

It lets whole Deal-or-No-Deal episodes with LLM agents run end to end (real HTTP, real
SDK, real tag parsing) with no model. It reads one machine-readable block that both
Deal-or-No-Deal LLM agents (raw ``llm`` and ``llm-workflow``,
:mod:`accord.domains.deal_or_no_deal.llm_agents`) put at the end of every user message;
this is the **prompt-state contract** between those agents and this policy. The last user
message is read; it contains exactly one block ``<DOND>{json}</DOND>``::

    {"role": "alice",                       # who this session plays
     "items": ["book", "hat", "ball"],
     "counts": {"book": 1, "hat": 2, "ball": 3},
     "my_values": {"book": 4, "hat": 0, "ball": 2},   # this party's own values only
     "round": r, "max_rounds": R,           # 1-based round, round cap
     "last_turn": false,                    # true on the episode's final turn
     "move": "propose" | "respond",         # respond: the partner's offer is on the table
     "offer_to_me": {item: n} | null,       # what the partner's pending offer leaves me
     "my_offer": {item: n} | null,          # my own pending proposal, if any
     "allowed": ["offer", "accept", "reject", "message", "walk"],
     "workflow": {                          # only in llm-workflow prompts
        "proposals": [{"share": {item: n}, "points": u, "p_ef": "1/3"}, ...],
        "rejected": [{item: n}, ...]}}      # shares the partner already rejected

``proposals`` are the workflow's candidates computed in code: first the solutions of
problem (1) (maximal own points subject to ``P_EF > 0`` over the belief), then the next
best shares that are still possibly envy-free, with their exact ``P_EF``.

Replies: a private ``<CONSIDER>...</CONSIDER>`` (stripped by the agent), a public
``<MESSAGE>...</MESSAGE>``, then one move: ``<deal>book=x hat=y ball=z</deal>`` (a
proposal of this party's own share), ``<ACCEPT/>``, or ``<REJECT/>`` followed by a counter
``<deal>``. It never walks (a walk-out is worth 0 points to both).

Strategy without ``workflow`` (a sensible raw negotiator): it never asks for items worth
nothing to it; its target falls linearly from its total value in round 1 to
``floor * total`` in the last round; it proposes the cheapest share (for it) that meets
the target, giving the partner as many items as possible among equals; it accepts an
offer worth at least its target or at least what it would counter with, and on the last
turn any offer worth more than nothing.

Strategy with ``workflow`` (Algorithm 1, as an LLM following the workflow prompt would):
it proposes the top candidate of problem (1) (most points, then highest ``P_EF``) and
accepts an offer that is envy-free for itself (its share worth at least the partner's
share under its own values) and worth at least that candidate - on the last turn, any
envy-free offer. With no candidates left it falls back to the raw strategy.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from accord.testing.stub.policies import (
    Outcome,
    Policy,
    PolicyError,
    PolicyRequest,
    Reply,
    register_policy,
)

DOND_RE = re.compile(r"<DOND>(.*?)</DOND>", re.S)

Share = tuple[int, ...]


@dataclass(frozen=True)
class PromptState:
    """The parsed ``<DOND>`` block."""

    items: tuple[str, ...]
    counts: Share
    values: Share
    round: int
    max_rounds: int
    last_turn: bool
    offer_to_me: Share | None
    proposals: tuple[tuple[Share, int, Fraction], ...] | None

    @property
    def total(self) -> int:
        """This party's value of all the items."""
        return points(self.values, self.counts)


def points(values: Sequence[int], share: Sequence[int]) -> int:
    """Value of ``share`` under ``values``."""
    return sum(v * s for v, s in zip(values, share, strict=True))


def _vector(block: Mapping[str, Any], key: str, items: Sequence[str]) -> Share:
    raw = block.get(key)
    if not isinstance(raw, Mapping) or set(raw) != set(items):
        raise PolicyError(f"dond policy: <DOND> {key!r} must map every item {list(items)} "
                          f"to an integer, got {raw!r}")
    try:
        return tuple(int(raw[i]) for i in items)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"dond policy: <DOND> {key!r} has a non-integer count: {exc}") from exc


def parse_state(text: str) -> PromptState:
    """Read the ``<DOND>`` block of a user message (:class:`PolicyError` if absent/bad)."""
    found = DOND_RE.findall(text)
    if len(found) != 1:
        raise PolicyError(f"dond policy: the last user message needs exactly one "
                          f"<DOND>{{json}}</DOND> block, found {len(found)}")
    try:
        block = json.loads(found[0])
        items = tuple(str(i) for i in block["items"])
        rnd, cap = int(block["round"]), int(block["max_rounds"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise PolicyError(f"dond policy: <DOND> needs JSON with items, round and "
                          f"max_rounds: {exc}") from exc
    offer = block.get("offer_to_me")
    proposals = None
    flow = block.get("workflow")
    if isinstance(flow, Mapping):
        try:
            proposals = tuple((_vector(p, "share", items), int(p["points"]),
                               Fraction(str(p["p_ef"]))) for p in flow.get("proposals", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise PolicyError(f"dond policy: bad workflow proposal row: {exc}") from exc
    return PromptState(items, _vector(block, "counts", items), _vector(block, "my_values", items),
                     rnd, cap, bool(block.get("last_turn")),
                     None if offer is None else _vector(block, "offer_to_me", items), proposals)


def target(state: PromptState, floor: float) -> float:
    """The raw strategy's aspiration this round (total in round 1, ``floor * total`` last)."""
    t = 1.0 if state.max_rounds <= 1 else min(1.0, (state.round - 1) / (state.max_rounds - 1))
    total = state.total
    return total - (total - floor * total) * t


def raw_proposal(state: PromptState, aim: float) -> Share:
    """The cheapest share meeting ``aim`` (never taking worthless items), most left over."""
    ranges = [range(c + 1) if v > 0 else range(1) for c, v in zip(state.counts, state.values,
                                                                    strict=True)]
    shares = list(itertools.product(*ranges))
    ok = [s for s in shares if points(state.values, s) >= aim - 1e-9]
    if not ok:
        return max(shares, key=lambda s: (points(state.values, s), -sum(s)))
    return min(ok, key=lambda s: (points(state.values, s), sum(s), s))


def _deal(items: Sequence[str], share: Sequence[int]) -> str:
    return "<deal>" + " ".join(f"{i}={n}" for i, n in zip(items, share, strict=True)) + "</deal>"


def _counter(state: PromptState, share: Share, note: str, respond: bool) -> Reply:
    deal = _deal(state.items, share)
    text = " and ".join(f"{n} {i}{'s' if n != 1 else ''}" for i, n in
                        zip(state.items, share, strict=True) if n) or "nothing"
    verdict = "<REJECT/>\n" if respond else ""
    return Reply(f"<CONSIDER>{note}</CONSIDER>\n<MESSAGE>How about I take {text} and you get "
                 f"the rest?</MESSAGE>\n{verdict}{deal}")


def _accept(note: str) -> Reply:
    return Reply(f"<CONSIDER>{note} I accept.</CONSIDER>\n<MESSAGE>Deal, thank you.</MESSAGE>"
                 "\n<ACCEPT/>")


@register_policy("dond")
class DondPolicy(Policy):
    """Rule-based Deal-or-No-Deal party for raw and workflow LLM prompts (see the module)."""

    name = "dond"

    def __init__(self, floor: float = 0.5) -> None:
        if not 0 <= floor <= 1:
            raise PolicyError(f"dond policy: floor must lie in [0, 1], got {floor}")
        self.floor = float(floor)

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read the ``<DOND>`` block of the last user message and answer with tags."""
        state = parse_state(request.last("user"))
        got = None if state.offer_to_me is None else points(state.values, state.offer_to_me)
        if state.proposals:
            return self._workflow(state, got)
        aim = target(state, self.floor)
        mine = raw_proposal(state, aim)
        note = f"Round {state.round}/{state.max_rounds}: private aim {aim:.2f} points"
        if got is not None:
            note += f"; the offer gives me {got}"
            if got >= aim - 1e-9 or got >= points(state.values, mine) or (
                    state.last_turn and got > 0):
                return _accept(note + ".")
        return _counter(state, mine, note + ".", got is not None)

    def _workflow(self, state: PromptState, got: int | None) -> Reply:
        assert state.proposals
        best_points = max(p for _, p, _ in state.proposals)
        share, pts, pef = max((r for r in state.proposals if r[1] == best_points),
                              key=lambda r: r[2])
        note = (f"Workflow: problem (1) gives {_deal(state.items, share)} worth {pts} "
                f"(P_EF {pef})")
        if got is not None:
            fair = 2 * got >= state.total  # my share is worth at least the partner's to me
            note += f"; the offer gives me {got} and is {'' if fair else 'not '}envy-free for me"
            if fair and (got >= pts or state.last_turn):
                return _accept(note + ".")
        return _counter(state, share, note + ".", got is not None)


__all__ = ["DOND_RE", "DondPolicy", "PromptState", "parse_state", "points", "raw_proposal",
           "target"]
