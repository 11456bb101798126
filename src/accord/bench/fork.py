"""``accord fork``: re-run a stored episode from round k with other agents or parameters.

The parent is read from a results store (spec and trajectory), its turns before round
``at`` become a :class:`~accord.protocols.fork.ForkPlan`, and the episode is run again by
its own domain inside :func:`~accord.protocols.fork.forking`: the engine replays the
parent's moves through the protocol (validated, never trusted), lets each seat's agent
take those turns as it would have, and plays on from round ``at`` with the seats as the
fork says. Forks are stored in the run :data:`RUN_NAME` with their parent (store run, id,
round, the changes) in the spec, the labels and the summary, so ``accord show`` and
``accord results --forks`` can put a parent beside its forks.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.bench.expand import PlannedEpisode
from accord.bench.store import EpisodeRow, Store, StoreError
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.protocols.fork import (
    ForkError,
    ForkPlan,
    SeatsProbe,
    forking,
    rounds_played,
    turns_from_events,
)

#: the run forks are stored in
RUN_NAME = "accord-fork"


@dataclass(frozen=True)
class ForkRequest:
    """What to change: the fork round, seats (a full line-up or by role/position), params."""

    at: int
    agents: tuple[str, ...] | None = None
    party: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    repeat: int = 1
    seed: int | None = None


@dataclass
class Parent:
    """A stored episode to fork: its store run, row and trajectory events."""

    store: str
    row: EpisodeRow
    events: list[dict[str, Any]]

    @property
    def id(self) -> str:
        """The parent's episode id."""
        return self.row.id

    def spec(self) -> EpisodeSpec:
        """The parent's episode spec, rebuilt from the store."""
        from accord.agents.spec import parse_agent_list

        s = self.row.spec
        agents = tuple(parse_agent_list(",".join(str(a) for a in s.get("agents", []))))
        return EpisodeSpec(str(s["domain"]), str(s["scenario"]), agents,
                           dict(s.get("params") or {}), int(s.get("seed", 0)))


def pinned_params(row: EpisodeRow) -> dict[str, Any]:
    """A stored episode's params with the defaults that depend on its line-up fixed to
    the values it ran with: bargaining's ``stagnation_rounds: auto`` is 3 with an LLM
    party and 0 without (issue 23), so a fork putting an LLM on a code seat would
    otherwise replay the parent's rounds under another rule."""
    params = dict(row.spec.get("params") or {})
    record = (row.summary or {}).get("record") or {}
    stagnation = record.get("stagnation") if isinstance(record, Mapping) else None
    if "stagnation_rounds" not in params and isinstance(stagnation, Mapping) and \
            isinstance(stagnation.get("rounds"), int):
        params["stagnation_rounds"] = stagnation["rounds"]
    return params


@dataclass
class Forked:
    """One finished fork: its spec, result, metrics, id and what changed."""

    id: str
    spec: EpisodeSpec
    result: Any
    metrics: dict[str, Any] | None
    info: dict[str, Any]
    wall_time: float


def load_parent(store: str | Path, episode: str, run: str | None = None) -> Parent:
    """The stored episode ``episode`` (an id prefix) with its trajectory."""
    with Store.open_readonly(store) as st:
        row = st.find(episode, run)
        text = st.trajectory(row.run, row.id)
    if row.status != "done" or not text:
        raise ForkError(f"episode {row.id} in {store} has no stored trajectory (status "
                        f"{row.status}); only a finished episode can be forked")
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    return Parent(str(store), row, events)


def _roles(parent: Parent, ctx_llm: Mapping[str, Any], data: str | None) -> tuple[str, ...]:
    """The parent's seats in line-up order, as its domain's protocol names them."""
    import asyncio

    spec = parent.spec()
    dom = get_domain(spec.domain)
    ctx = RunContext(episode_id=parent.id, llm=dict(ctx_llm), data=data)
    try:
        with forking(ForkPlan(parent.id, 0, ())):
            asyncio.run(dom.run_episode(spec, ctx))
    except SeatsProbe as probe:
        return probe.roles
    raise ForkError(f"the {spec.domain} domain does not run its episodes through accord's "
                    "engine; it cannot be forked")


def fork_spec(parent: Parent, roles: Sequence[str], req: ForkRequest
              ) -> tuple[EpisodeSpec, dict[str, Any]]:
    """The fork's spec and the changes it makes (seats by role, params), checked."""
    from accord.agents.spec import parse_agent_list

    base = parent.spec()
    agents = list(base.agents)
    if req.agents is not None:
        new = parse_agent_list(",".join(req.agents))
        if len(new) != len(agents):
            raise ForkError(f"--agents gives {len(new)} agents; the episode has "
                            f"{len(agents)} seats ({', '.join(roles)})")
        agents = list(new)
    for key, value in req.party.items():
        if key in roles:
            i = list(roles).index(key)
        elif key.isdigit() and 1 <= int(key) <= len(agents):
            i = int(key) - 1
        else:
            raise ForkError(f"--party {key}=...: no such seat; the seats are "
                            f"{', '.join(roles)} (or 1..{len(agents)})")
        agents[i] = parse_agent_list(value)[0]
    # another line-up replays the parent's rounds under the parent's rules
    pinned = pinned_params(parent.row) if [str(a) for a in agents] != \
        [str(a) for a in base.agents] else dict(base.params)
    params = {**pinned, **dict(req.params)}
    seed = base.seed if req.seed is None else req.seed
    spec = EpisodeSpec(base.domain, base.scenario, tuple(agents), params, seed)
    changed = {roles[i] if i < len(roles) else str(i + 1): str(a)
               for i, (a, b) in enumerate(zip(agents, base.agents, strict=True))
               if str(a) != str(b)}
    changes: dict[str, Any] = {}
    if changed:
        changes["agents"] = changed
    param_changes = {k: v for k, v in params.items()
                     if base.params.get(k) != v and (k not in pinned or k in req.params)}
    if param_changes:
        changes["params"] = param_changes
    if seed != base.seed:
        changes["seed"] = seed
    return spec, changes


def fork_id(parent_id: str, at: int, spec: EpisodeSpec, repeat: int) -> str:
    """A fork's episode id: the parent, the round, the fork's spec and the repetition."""
    import hashlib

    from accord.domains.ids import canonical_json, episode_id

    blob = canonical_json({"parent": parent_id, "at": at, "spec": str(episode_id(spec)),
                           "repeat": repeat})
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def run_forks(parent: Parent, req: ForkRequest, llm: Mapping[str, Any] | None = None,
              data: str | None = None) -> list[Forked]:
    """Run ``req.repeat`` forks of ``parent`` (repetition i uses seed ``seed + i``)."""
    import asyncio

    played = rounds_played(parent.events)
    if not 1 <= req.at <= played:
        raise ForkError(f"--at {req.at}: episode {parent.id} has moves in rounds 1 to "
                        f"{played}; fork at one of those rounds")
    if req.repeat < 1:
        raise ForkError(f"--repeat must be at least 1, got {req.repeat}")
    llm = dict(llm or {})
    roles = _roles(parent, llm, data)
    base_spec, changes = fork_spec(parent, roles, req)
    dom = get_domain(base_spec.domain)
    dom.validate(base_spec)
    turns = turns_from_events(parent.events, req.at)
    changed = tuple(changes.get("agents", {}))
    out: list[Forked] = []
    for i in range(req.repeat):
        spec = base_spec if i == 0 else EpisodeSpec(
            base_spec.domain, base_spec.scenario, base_spec.agents, base_spec.params,
            base_spec.seed + i)
        fid = fork_id(parent.id, req.at, spec, i)
        # the parent's cache scope while the fork is the parent's own episode (same seed):
        # its seats' cached answers after round ``at`` are then found again
        scope = parent.id if spec.seed == parent.spec().seed else fid
        plan = ForkPlan(parent.id, req.at, turns, changed)
        ctx = RunContext(episode_id=scope, llm=llm, data=data,
                         extra={"run": RUN_NAME, "repeat": i})
        t0 = time.perf_counter()
        with forking(plan):
            result = asyncio.run(dom.run_episode(spec, ctx))
        wall = time.perf_counter() - t0
        _check_prefix(result, req.at)
        info = {"parent": parent.id, "parent_run": parent.row.run, "at": req.at,
                "changes": changes, "repeat": i, "seed": spec.seed}
        try:
            metrics = dom.metrics(spec, result)
        except Exception:  # metrics are a bonus of the record, never fatal
            metrics = None
        out.append(Forked(fid, spec, result, metrics, info, wall))
    return out


def _check_prefix(result: Any, at: int) -> None:
    """A fork whose replayed rounds failed is an error of the fork, not an outcome."""
    if result.status != "error":
        return
    for ev in result.trajectory.events:
        if ev.kind == "agent_error" and ev.round < at:
            raise ForkError(f"replaying the parent's round {ev.round} failed for {ev.party}: "
                            f"{ev.feedback}")


def save_forks(store: str | Path, forks: Sequence[Forked]) -> None:
    """Write finished forks to ``store`` (run :data:`RUN_NAME`), each with its parent."""
    from accord.bench.lineups import Lineup
    from accord.bench.single import write_finished

    items = []
    for f in forks:
        lineup = Lineup(tuple(f.spec.agents))
        planned = PlannedEpisode(f.id, f.spec, f.info["repeat"],
                                 {"lineup": lineup.label(), "agents": lineup.agent_labels(),
                                  "parent": f.info["parent"], "at": f.info["at"]}, 0,
                                 fork_info=f.info)
        items.append((planned, f.result, f.metrics, {"fork": f.info}, f.wall_time))
    write_finished(store, RUN_NAME, "accord fork", items)


__all__ = ["RUN_NAME", "ForkError", "ForkRequest", "Forked", "Parent", "StoreError",
           "fork_spec", "load_parent", "run_forks", "save_forks"]
