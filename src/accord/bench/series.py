"""Repeated play (issue 29): the same parties meet N times, remembering earlier episodes.

:func:`run_series` plays episode after episode of one scenario with one line-up. Before
episode i, each party gets a memory (:mod:`accord.agents.memory`): one line per earlier
episode written from *its own* observation (:func:`episode_line`: the outcome, the terms
everyone saw, its own result against its own BATNA, the other side's opening and last
offers; never another party's utility or BATNA) and, with a critic, the critic's feedback
on its latest episode (:mod:`accord.bench.critic`). The series metrics
(:func:`series_metrics`) make trends visible: agreement and surplus over the episodes, a
party's share drifting (exploitation), and how varied the offers are across episodes
(diversity; 0 when every episode repeats the same offers: seed 002's mode collapse).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from accord.agents.memory import MEMORY, Memory, recent
from accord.domains import EpisodeSpec, RunContext, get_domain

#: the run series are stored in
RUN_NAME = "accord-series"


@dataclass(frozen=True)
class SeriesRequest:
    """A series: the episode every repetition starts from, its length, memory, critic."""

    spec: EpisodeSpec
    episodes: int
    memory: bool = True
    #: earlier episodes a party remembers (0: all)
    keep: int = 0
    #: ``code`` or an LLM spec (``llm:MODEL``); ``None``: no critic
    critic: str | None = None
    #: the roles the critic advises (``None``: every party)
    critic_for: tuple[str, ...] | None = None


@dataclass
class SeriesEpisode:
    """One played episode of a series, with what each party carried into it."""

    index: int
    id: str
    spec: EpisodeSpec
    result: Any
    metrics: dict[str, Any] | None
    memory: dict[str, str] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)
    wall_time: float = 0.0


def series_id(req: SeriesRequest) -> str:
    """The series' id: a hash of its first episode and its settings."""
    from accord.domains.ids import episode_id

    blob = json.dumps({"first": str(episode_id(req.spec)), "n": req.episodes,
                       "memory": req.memory, "keep": req.keep, "critic": req.critic,
                       "critic_for": list(req.critic_for or [])}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# -- what a party observed -------------------------------------------------------------

def _pkg(p: Any) -> str:
    if isinstance(p, Mapping):
        return ", ".join(f"{k}={v}" for k, v in p.items())
    return str(p)


def offers_by(events: Sequence[Any], party: str | None = None) -> list[str]:
    """The packages offered in an episode (offers, counter-offers), as canonical JSON, by
    ``party`` or by everyone."""
    out = []
    for ev in events:
        d = ev if isinstance(ev, Mapping) else ev.to_dict()
        if d.get("kind") != "move" or (party is not None and d.get("party") != party):
            continue
        m = d.get("move") or {}
        pkg = m.get("package") if m.get("kind") == "offer" else (
            (m.get("counter") or {}).get("package") if m.get("kind") == "reject" else None)
        if pkg is None and m.get("kind") in ("propose", "action", "decide"):
            pkg = m.get("proposal") or m.get("action") or m.get("decision")
        if pkg is not None:
            out.append(json.dumps(pkg, sort_keys=True, default=str))
    return out


def own_value(summary: Mapping[str, Any], metrics: Mapping[str, Any] | None,
              role: str) -> float | None:
    """The party's own result (utility, payoff, points, or the group's reward)."""
    from accord.bench.lineage import party_values

    values = party_values(summary, metrics)
    return values.get(role, values.get("reward"))


def own_batna(summary: Mapping[str, Any], role: str) -> float | None:
    """The party's own BATNA when the record holds it."""
    batna = ((summary or {}).get("record") or {}).get("batna")
    if isinstance(batna, Mapping) and isinstance(batna.get(role), (int, float)):
        return float(batna[role])
    return None


def episode_line(index: int, role: str, summary: Mapping[str, Any],
                 metrics: Mapping[str, Any] | None, events: Sequence[Any]) -> str:
    """One line of a party's memory: episode ``index`` as ``role`` observed it."""
    s = summary or {}
    record = s.get("record") or {}
    status, rounds = s.get("status"), s.get("rounds")
    if status == "agreement":
        deal = record.get("agreement") if isinstance(record, Mapping) else None
        what = f"agreement in round {rounds}" + (f" on {_pkg(deal)}" if deal else "")
    elif status == "completed":
        what = f"played to the end ({rounds} rounds)"
    else:
        why = s.get("reason") or "no agreement"
        who = s.get("who")
        what = f"no deal ({str(why).replace('_', ' ')}" + (
            f", ended by {who}" if who and who != role else ", ended by you" if who else "") + ")"
    value, batna = own_value(s, metrics, role), own_batna(s, role)
    mine = ("" if value is None else f"; your result {value:.3g}"
            + ("" if batna is None else f" (your BATNA {batna:.3g})"))
    others = [d for d in (e if isinstance(e, Mapping) else e.to_dict() for e in events)
              if d.get("kind") == "move" and d.get("party") not in (None, role)]
    theirs = offers_by(others)
    seen = ""
    if theirs:
        first, last = json.loads(theirs[0]), json.loads(theirs[-1])
        seen = (f"; the other side made {len(theirs)} offer{'s' if len(theirs) != 1 else ''}"
                f", opening with {_pkg(first)}"
                + (f" and ending with {_pkg(last)}" if len(theirs) > 1 else ""))
    return f"Episode {index + 1}: {what}{mine}{seen}."


# -- the series ------------------------------------------------------------------------

def run_series(req: SeriesRequest, llm: Mapping[str, Any] | None = None,
               data: str | None = None) -> tuple[str, list[SeriesEpisode]]:
    """Play the series; returns its id and episodes (see the module doc)."""
    from accord.bench.critic import make_critic
    from accord.domains.ids import episode_id

    if req.episodes < 1:
        raise ValueError(f"a series needs at least 1 episode, got {req.episodes}")
    sid = series_id(req)
    dom = get_domain(req.spec.domain)
    dom.validate(req.spec)
    critic = make_critic(req.critic, llm) if req.critic else None
    lines: dict[str, list[str]] = {}
    feedback: dict[str, str] = {}
    out: list[SeriesEpisode] = []
    for i in range(req.episodes):
        spec = EpisodeSpec(req.spec.domain, req.spec.scenario, req.spec.agents,
                           {**req.spec.params}, req.spec.seed + i)
        memory = {role: Memory(recent(lines.get(role, []), req.keep), feedback.get(role))
                  for role in set(lines) | set(feedback)} if req.memory or critic else {}
        if not req.memory:  # a critic alone: feedback without the episode lines
            memory = {r: Memory((), m.feedback) for r, m in memory.items()}
        eid = hashlib.sha256(f"{sid}/{i}/{episode_id(spec)}".encode()).hexdigest()[:16]
        ctx = RunContext(episode_id=eid, llm=dict(llm or {}), data=data,
                         extra={"run": RUN_NAME, "repeat": i})
        token = MEMORY.set(memory)
        t0 = time.perf_counter()
        try:
            result = asyncio.run(dom.run_episode(spec, ctx))
        finally:
            MEMORY.reset(token)
        wall = time.perf_counter() - t0
        try:
            metrics = dom.metrics(spec, result)
        except Exception:  # metrics are a bonus of the record, never fatal
            metrics = None
        summary = result.summary()
        events = result.trajectory.events
        roles = _roles(events, summary, metrics)
        for role in roles:
            lines.setdefault(role, []).append(episode_line(i, role, summary, metrics, events))
        ep = SeriesEpisode(i, eid, spec, result, metrics,
                           {r: m.text() for r, m in memory.items() if m.text()}, {}, wall)
        if critic is not None:
            for role in roles:
                if req.critic_for is None or role in req.critic_for:
                    text = critic.advise(role, spec, summary, metrics, events, i)
                    if text:
                        feedback[role] = ep.feedback[role] = text
        out.append(ep)
    return sid, out


def _roles(events: Sequence[Any], summary: Mapping[str, Any],
           metrics: Mapping[str, Any] | None) -> list[str]:
    """The parties of an episode: who moved, in order of their first move."""
    roles: list[str] = []
    for ev in events:
        if ev.kind == "move" and ev.party and ev.party not in roles and ev.party not in (
                "mediator", "judge"):
            roles.append(ev.party)
    return roles


# -- metrics ---------------------------------------------------------------------------

def slope(ys: Sequence[float | None]) -> float | None:
    """The least-squares slope of ``ys`` over their index (``None`` entries skipped;
    ``None`` with fewer than two points)."""
    pts = [(float(i), float(y)) for i, y in enumerate(ys) if y is not None]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def diversity(offer_sets: Sequence[Sequence[str]]) -> float | None:
    """Mean pairwise Jaccard distance between the episodes' sets of offers: 0 when every
    episode makes the same offers (mode collapse), 1 when no offer is ever repeated across
    episodes; ``None`` with fewer than two episodes that made offers."""
    sets = [frozenset(s) for s in offer_sets if s]
    if len(sets) < 2:
        return None
    dists = [1 - len(a & b) / len(a | b) for a, b in combinations(sets, 2)]
    return sum(dists) / len(dists)


def series_metrics(episodes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Trends over a series (``episodes``: dicts with ``summary``, ``metrics``,
    ``events``, in order): agreement rate and trend, each party's mean surplus over its
    BATNA (its value when no BATNA is known) and trend, share trend (exploitation: a
    party's share of the summed values drifting), offer diversity overall and per party."""
    n = len(episodes)
    agreed = [1.0 if (e["summary"] or {}).get("status") == "agreement" else 0.0
              for e in episodes]
    roles: list[str] = []
    for e in episodes:
        for ev in e["events"]:
            d = ev if isinstance(ev, Mapping) else ev.to_dict()
            p = d.get("party")
            if d.get("kind") == "move" and p and p not in roles and p not in ("mediator",):
                roles.append(p)
    out: dict[str, Any] = {"episodes": n, "agreement_rate": sum(agreed) / n if n else None,
                           "agreement_trend": slope(agreed)}
    values = {r: [own_value(e["summary"], e.get("metrics"), r) for e in episodes]
              for r in roles}
    for r in roles:
        surplus = []
        for e, v in zip(episodes, values[r], strict=True):
            b = own_batna(e["summary"], r)
            surplus.append(None if v is None else v - (b or 0.0))
        known = [s for s in surplus if s is not None]
        out[f"surplus_{r}"] = sum(known) / len(known) if known else None
        out[f"surplus_trend_{r}"] = slope(surplus)
    if len(roles) >= 2:
        for r in roles:
            shares: list[float | None] = []
            for i in range(n):
                vs = [values[q][i] for q in roles]
                total = sum(v for v in vs if v is not None)
                v = values[r][i]
                shares.append(v / total if v is not None and total > 0 and
                              all(x is not None and x >= 0 for x in vs) else None)
            out[f"share_trend_{r}"] = slope(shares)
    out["diversity"] = diversity([offers_by(e["events"]) for e in episodes])
    for r in roles:
        out[f"diversity_{r}"] = diversity([offers_by(e["events"], r) for e in episodes])
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()}


def save_series(store: Any, sid: str, req: SeriesRequest, episodes: Sequence[SeriesEpisode]
                ) -> None:
    """Write a played series to ``store`` (run :data:`RUN_NAME`)."""
    from accord.bench.expand import PlannedEpisode
    from accord.bench.lineups import Lineup
    from accord.bench.single import write_finished

    info = {"id": sid, "of": req.episodes, "memory": req.memory, "keep": req.keep,
            "critic": req.critic, "critic_for": list(req.critic_for or [])}

    @dataclass(frozen=True)
    class _Planned(PlannedEpisode):
        index: int = 0

        def spec_record(self) -> dict[str, Any]:
            return {**super().spec_record(), "series": {**info, "index": self.index}}

    items = []
    for ep in episodes:
        lineup = Lineup(tuple(ep.spec.agents))
        planned = _Planned(ep.id, ep.spec, ep.index, {"lineup": lineup.label(),
                                                      "agents": lineup.agent_labels(),
                                                      "series": sid}, 0, index=ep.index)
        extra = {"series": {**info, "index": ep.index, "memory_in": ep.memory,
                            "feedback": ep.feedback}}
        items.append((planned, ep.result, ep.metrics, extra, ep.wall_time))
    write_finished(store, RUN_NAME, "accord series", items)


__all__ = ["RUN_NAME", "SeriesEpisode", "SeriesRequest", "diversity", "episode_line",
           "offers_by", "run_series", "save_series", "series_id", "series_metrics", "slope"]
