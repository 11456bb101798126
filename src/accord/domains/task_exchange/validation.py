"""Proposal validation (seed 000, Appendix B.2): the invalid patterns and their feedback.

A proposal is an *assignment* ``role -> descriptions`` (the JSON inside ``<PROPOSAL>``).
:func:`check_assignment` lists every violated rule, most fundamental first; the first
one is the pattern recorded for the attempt (Table 2), and the feedback returned to
the proposer names all of them with the composite masks and the atomic tasks
involved (Figure 9). The two tag patterns are found by the reply parser.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.domains.task_exchange.llm.templates import render_feedback
from accord.domains.task_exchange.masks import union
from accord.domains.task_exchange.scenario import TaskUniverse
from accord.protocols.base import Invalid

PATTERNS: dict[str, str] = {
    "unknown_task": "UNK",
    "missing_atomic_tasks": "MAT",
    "overlap": "OVL",
    "missing_proposal_open_tag": "MPT",
    "missing_proposal_close_tag": "MET",
    "multiple_descriptions": "MDA",
    "empty_agent": "EMP",
}
"""The seven invalid-proposal patterns of Table 2: reason -> column code."""

PATTERN_TITLES: dict[str, str] = {
    "unknown_task": "Unknown task(s)",
    "missing_atomic_tasks": "Missing atomic task(s)",
    "overlap": "Overlap detected",
    "missing_proposal_open_tag": "Missing <PROPOSAL> tag",
    "missing_proposal_close_tag": "Missing </PROPOSAL> tag",
    "multiple_descriptions": "Multiple descriptions per agent",
    "empty_agent": "Empty agent",
}
"""Human-readable names of the patterns, as in Table 2's caption."""

OTHER_REASONS: tuple[str, ...] = ("malformed_proposal", "ambiguous_response", "unclosed_tag",
                                   "illegal_move", "reply_too_long")
"""Invalid replies outside the paper's seven patterns (unparseable JSON, both tags, an
unclosed free-text tag, wrong move)."""

Assignment = Mapping[str, Sequence[str]]
"""A proposal as written: each role's list of composite descriptions."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: its pattern ``reason``, the feedback block and structured details."""

    reason: str
    feedback: str
    details: Mapping[str, Any] = field(default_factory=dict)


def _closest(universe: TaskUniverse, text: str) -> dict[str, str] | None:
    match = difflib.get_close_matches(text, universe.descriptions, n=1, cutoff=0.6)
    if not match:
        return None
    mask = universe.mask_of(match[0])
    assert mask is not None
    return {"description": match[0], "mask": universe.fmt(mask)}


def check_assignment(assignment: Assignment, universe: TaskUniverse,
                     roles: Sequence[str]) -> list[Violation]:
    """Every violation in ``assignment`` (empty list when valid), primary pattern first.

    Order: an agent that is not one of ``roles`` (``malformed_proposal``, as the reply
    parser reports it), unknown task, multiple descriptions per agent, empty agent,
    overlap, missing atomic task(s). Overlap and coverage are only judged when every
    description is listed; an agent with several descriptions counts as their OR (Rule 4).
    """
    strangers = [str(k) for k in assignment if k not in roles]
    if strangers:
        problem = f"unknown agent {strangers[0]!r}; the agents are {', '.join(roles)}."
        return [Violation("malformed_proposal", render_feedback(
            "malformed_proposal", roles=list(roles), problem=problem),
            {"unknown_agents": strangers})]
    out: list[Violation] = []
    unknown = [{"role": r, "description": d, "closest": _closest(universe, d)}
               for r in roles for d in assignment.get(r, ()) if universe.mask_of(d) is None]
    if unknown:
        out.append(Violation("unknown_task", render_feedback("unknown_task", assignments=unknown),
                             {"unknown": [u["description"] for u in unknown]}))
    masks: dict[str, int] = {}
    for role in roles:
        descs = list(assignment.get(role, ()))
        known = [universe.mask_of(d) for d in descs]
        masks[role] = union(m for m in known if m is not None)
        if len(descs) > 1:
            entries = [{"description": d,
                        "where": f" (mask={universe.fmt(m)})" if m is not None else " (not listed)"}
                       for d, m in zip(descs, known, strict=True)]
            merged = None
            if all(m is not None for m in known):
                merged = {"description": universe.description(masks[role]),
                          "mask": universe.fmt(masks[role])}
            out.append(Violation(
                "multiple_descriptions",
                render_feedback("multiple_descriptions", role=role, entries=entries,
                                merged=merged),
                {"role": role, "count": len(descs)}))
    listed = not unknown
    for role in roles:
        if not assignment.get(role) or (listed and masks[role] == 0):
            other = next(r for r in roles if r != role)
            other_entry = None
            if listed and masks[other]:
                other_entry = {"description": universe.description(masks[other]),
                               "mask": universe.fmt(masks[other])}
            out.append(Violation("empty_agent", render_feedback(
                "empty_agent", empty=role, other=other, other_entry=other_entry),
                {"role": role}))
    if not listed:
        return out
    a, b = roles[0], roles[1]
    shared = masks[a] & masks[b]
    if shared:
        entries = [{"description": universe.description(masks[r]), "mask": universe.fmt(masks[r])}
                   for r in (a, b)]
        out.append(Violation("overlap", render_feedback(
            "overlap", entries=entries, shared=universe.labels(shared),
            shared_mask=universe.fmt(shared)),
            {"masks": {r: universe.fmt(masks[r]) for r in roles},
             "shared": universe.fmt(shared)}))
    covered = masks[a] | masks[b]
    if covered != universe.full and masks[a] and masks[b]:
        missing = universe.full ^ covered
        entries = [{"role": r, "description": universe.description(masks[r]),
                    "mask": universe.fmt(masks[r])} for r in roles]
        out.append(Violation("missing_atomic_tasks", render_feedback(
            "missing_atomic_tasks", entries=entries, covered=universe.fmt(covered),
            missing=universe.labels(missing), missing_mask=universe.fmt(missing)),
            {"masks": {r: universe.fmt(masks[r]) for r in roles},
             "missing": universe.fmt(missing)}))
    return out


def to_invalid(violations: Sequence[Violation]) -> Invalid | None:
    """Fold violations into one engine :class:`Invalid` (primary reason, all feedback blocks)."""
    if not violations:
        return None
    details: dict[str, Any] = {"patterns": [v.reason for v in violations]}
    for v in violations:
        for key, val in v.details.items():
            details.setdefault(key, val)
    return Invalid(violations[0].reason, "\n".join(v.feedback for v in violations), details)


def assignment_masks(assignment: Assignment, universe: TaskUniverse,
                     roles: Sequence[str]) -> dict[str, int] | None:
    """``role -> mask`` of a valid assignment (one listed description each), else ``None``."""
    out: dict[str, int] = {}
    for role in roles:
        descs = list(assignment.get(role, ()))
        if len(descs) != 1:
            return None
        mask = universe.mask_of(descs[0])
        if mask is None:
            return None
        out[role] = mask
    return out


def pattern_code(reason: str) -> str:
    """Table 2 code of a reason (``OTH`` for the reasons outside the seven patterns)."""
    return PATTERNS.get(reason, "OTH")


__all__ = [
    "OTHER_REASONS",
    "PATTERNS",
    "PATTERN_TITLES",
    "Assignment",
    "Violation",
    "assignment_masks",
    "check_assignment",
    "pattern_code",
    "to_invalid",
]
