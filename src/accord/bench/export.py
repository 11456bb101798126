"""``accord export``: stored episodes as chat training data (issue 29, seed 002's
"utility-aware fine-tuning").

Each example is one party's own view of one episode: the conversation an LLM agent of the
episode's domain has in that seat - its system prompt and turn prompts as the protocol
projects the state for that party (``Protocol.observe``: never another party's private
values), and its own replies. The conversation is rebuilt by replaying the stored moves
through the protocol with an LLM agent on every seat (:mod:`accord.protocols.fork`): a
seat a model played gets its logged replies (private reasoning is never logged, so never
exported), a bargaining seat a code strategy played gets its moves written in the
negotiator's reply format. No model is called.

Formats (JSON lines, the conventions of Hugging Face ``datasets`` / TRL):

* ``sft``: ``{"messages": [{"role", "content"}...], "meta": {...}}`` per party and episode;
* ``preference``: from forks (``accord fork ... --save``), per party whose first reply
  after the fork round differs between two episodes of the same parent and round:
  ``{"prompt": [...], "chosen": [assistant], "rejected": [assistant], "meta": {...}}``,
  the prompt being that party's conversation up to the fork round (the same prefix), the
  chosen reply the one of the episode where the party ended with the higher value.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from accord.bench.fork import pinned_params
from accord.bench.store import EpisodeRow
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.protocols.fork import ForkError, ForkPlan, ReplayDone, forking, turns_from_events

#: the export formats
FORMATS = ("sft", "preference")
#: agent kinds that are language models: their spec (model, options) is kept, so the
#: exported prompts are the ones that seat saw
LLM_KINDS = frozenset({"llm", "llm-workflow", "llm-centralized", "llm-oracle"})
#: the agent put on a seat a code strategy or a person played (never called), in the domains
#: whose LLM agent can write a logged move as its own reply (bargaining)
STAND_IN = "llm:mock/echo"
WRITES_MOVES = frozenset({"bargaining"})


@dataclass
class Seat:
    """One party's rebuilt conversations in one episode (one per session it held: an
    agent with modules has one per module)."""

    role: str
    #: the agent spec that sat there (as stored)
    agent: str | None
    #: (session label, messages) per session, in the order they were opened
    sessions: list[tuple[str, list[dict[str, str]]]]
    #: model replies of this seat that came from the log (0: its moves were written out)
    logged: int

    @property
    def messages(self) -> list[dict[str, str]]:
        """The first session's messages (the only one of a single-session agent)."""
        return self.sessions[0][1]


def _spec(row: EpisodeRow) -> EpisodeSpec:
    from accord.agents.spec import parse_agent_list

    s = row.spec
    agents = parse_agent_list(",".join(str(a) for a in s.get("agents", [])))
    domain = str(s["domain"])
    if domain in WRITES_MOVES:
        agents = [a if a.kind in LLM_KINDS else parse_agent_list(STAND_IN)[0] for a in agents]
    return EpisodeSpec(domain, str(s["scenario"]), tuple(agents), pinned_params(row),
                       int(s.get("seed", 0)))


def sessions_of(agent: Any) -> list[Any]:
    """The chat sessions an LLM agent holds (one, or one per module), in creation order."""
    from accord.agents.llm_support import LLMSession

    found: list[Any] = []
    for holder in (agent, getattr(agent, "chat", None)):
        if holder is None:
            continue
        one = getattr(holder, "session", None)
        if isinstance(one, LLMSession):
            found.append(one)
        many = getattr(holder, "sessions", None)
        if isinstance(many, Mapping):
            found += [s for s in many.values() if isinstance(s, LLMSession)]
    return found


def conversations(row: EpisodeRow, events: Sequence[Mapping[str, Any]],
                  data: str | None = None) -> dict[str, Seat]:
    """Each LLM seat's conversation in a stored episode, as the agent in it had it (see
    the module doc); ``{}`` for an episode whose moves cannot be replayed. In bargaining
    every seat has one (a code strategy's moves are written as the negotiator's replies)."""
    spec = _spec(row)
    last = max((e["round"] for e in events if e.get("kind") == "move"), default=0)
    turns = turns_from_events(events, last + 1)
    seats: dict[str, Any] = {}
    plan = ForkPlan(row.id, last + 1, turns, whole=True, on_seated=seats.update)
    ctx = RunContext(episode_id=row.id, llm={"cache_mode": "off"}, data=data)
    try:
        with forking(plan):
            asyncio.run(get_domain(spec.domain).run_episode(spec, ctx))
    except ReplayDone:  # the log ended without the protocol's end (a bound, an error)
        pass
    except ForkError:
        return {}
    logged: dict[str, int] = {}
    for t in turns:
        logged[t.party] = logged.get(t.party, 0) + len(t.replies)
    labels = [str(a) for a in row.spec.get("agents", [])]
    out = {}
    for i, (role, agent) in enumerate(seats.items()):
        found = [(str(sess.agent), [dict(m) for m in sess.messages])
                 for sess in sessions_of(agent)]
        found = [(label, msgs) for label, msgs in found
                 if any(m["role"] == "assistant" for m in msgs)]
        if found:
            out[role] = Seat(role, labels[i] if i < len(labels) else None, found,
                             logged.get(role, 0))
    return out


def party_value(row: EpisodeRow, role: str) -> float | None:
    """The party's value at the end of a stored episode (utility, payoff, points)."""
    from accord.bench.lineage import party_values

    values = party_values(row.summary, row.metrics)
    return values.get(role, values.get("reward"))


def _meta(row: EpisodeRow, role: str, seat: Seat, session: str) -> dict[str, Any]:
    s = row.summary or {}
    return {"episode": row.id, "run": row.run, "domain": row.spec.get("domain"),
            "scenario": row.spec.get("scenario"), "party": role, "session": session,
            "agent": seat.agent, "outcome": s.get("status"), "reason": s.get("reason"),
            "rounds": s.get("rounds"), "value": party_value(row, role),
            "replies_from_model": seat.logged}


def sft_examples(rows: Sequence[EpisodeRow], trajectory: Any, data: str | None = None
                 ) -> Iterator[dict[str, Any]]:
    """``sft`` examples of stored episodes (``trajectory(row)``: its events)."""
    for row in rows:
        if row.status != "done" or row.outcome == "error":
            continue
        for role, seat in conversations(row, trajectory(row), data).items():
            for label, messages in seat.sessions:
                yield {"messages": messages, "meta": _meta(row, role, seat, label)}


def preference_pairs(rows: Sequence[EpisodeRow], trajectory: Any, data: str | None = None
                     ) -> Iterator[dict[str, Any]]:
    """``preference`` pairs from the forks among ``rows`` (and their parents)."""
    by_id = {r.id: r for r in rows}
    families: dict[tuple[str, int], list[EpisodeRow]] = {}
    for r in rows:
        info = r.spec.get("fork")
        if isinstance(info, Mapping) and r.status == "done" and r.outcome != "error":
            families.setdefault((str(info["parent"]), int(info["at"])), []).append(r)
    for (parent_id, at), forks in families.items():
        parent = by_id.get(parent_id)
        members = ([parent] if parent is not None and parent.outcome != "error" else []) + forks
        views = {m.id: conversations(m, trajectory(m), data) for m in members}
        for a, b in combinations(members, 2):
            for role in set(views[a.id]) & set(views[b.id]):
                pair = _pair(a, b, role, views[a.id][role], views[b.id][role], at)
                if pair is not None:
                    yield pair


def _split(messages: list[dict[str, str]], at_user: int) -> tuple[list[dict[str, str]],
                                                                    dict[str, str] | None]:
    """The messages up to and including user message ``at_user`` (0-based) and the
    assistant reply after it."""
    seen = -1
    for i, m in enumerate(messages):
        if m["role"] == "user":
            seen += 1
            if seen == at_user:
                nxt = messages[i + 1] if i + 1 < len(messages) else None
                return messages[:i + 1], nxt if nxt and nxt["role"] == "assistant" else None
    return messages, None


def _pair(a: EpisodeRow, b: EpisodeRow, role: str, va: Seat, vb: Seat, at: int
          ) -> dict[str, Any] | None:
    """A preference pair of ``role`` between two episodes sharing a prefix, or ``None``."""
    ua, ub = party_value(a, role), party_value(b, role)
    if ua is None or ub is None or ua == ub:
        return None
    # the first user turn where the two conversations part
    n = 0
    while True:
        pa, ra = _split(va.messages, n)
        pb, rb = _split(vb.messages, n)
        if ra is None or rb is None or pa != pb:
            return None
        if ra["content"] != rb["content"]:
            break
        n += 1
    win, lose = (ra, rb) if ua > ub else (rb, ra)
    hi, lo = (a, b) if ua > ub else (b, a)
    return {"prompt": pa, "chosen": [win], "rejected": [lose],
            "meta": {"party": role, "fork_round": at, "domain": a.spec.get("domain"),
                     "scenario": a.spec.get("scenario"), "chosen_episode": hi.id,
                     "rejected_episode": lo.id, "chosen_value": max(ua, ub),
                     "rejected_value": min(ua, ub)}}


__all__ = ["FORMATS", "Seat", "conversations", "party_value", "preference_pairs",
           "sessions_of", "sft_examples"]

