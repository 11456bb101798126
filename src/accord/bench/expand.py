"""Expanding a config into episodes, each with a deterministic id.

The id is a hash of the episode's full canonical spec: ``EpisodeSpec.to_dict()`` (domain,
scenario, agents with their options, params, seed) plus the repetition index, with
credentials masked first (rotating an API key must not change the id). Run-time settings
(LLM cache mode, data directory, executor) are not part of it: they do not define the
episode. Display labels (line-up and agent names) are not either.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from accord.bench.config import ExperimentConfig, episode_parts
from accord.bench.yamlpos import join_key
from accord.core.redact import Redactor
from accord.core.safeload import clip, short
from accord.domains import EpisodeSpec, get_domain
from accord.domains.base import Domain
from accord.domains.ids import (  # noqa: F401  (re-exported: the runner's ids)
    ID_LENGTH,
    ID_VERSION,
    canonical_json,
    episode_id,
    episode_key,
)
from accord.protocols.fork import ForkPlan, rounds_played, turns_from_events

#: key- and shape-based masking only: stored specs must not depend on the environment
_MASK = Redactor(env_values=[])


@dataclass(frozen=True)
class PlannedEpisode:
    """One episode of a run: id, spec, repetition, display labels and order."""

    id: str
    spec: EpisodeSpec
    repeat: int
    labels: dict[str, Any]
    seq: int
    order: tuple[int, int, int] = (0, 0, 0)
    #: a fork of a stored episode (``fork:`` in a sweep): what its worker replays first
    fork: ForkPlan | None = None
    #: the fork's parent, round and changes, stored with the spec
    fork_info: Mapping[str, Any] | None = None

    def spec_record(self) -> dict[str, Any]:
        """The stored (credential-free) spec: ``EpisodeSpec.to_dict()`` plus ``repeat``
        (and ``fork``: parent, round, changes, for a fork)."""
        out = {**_MASK.clean(self.spec.to_dict()), "repeat": self.repeat}
        if self.fork_info is not None:
            out["fork"] = dict(self.fork_info)
        return out


@dataclass(frozen=True)
class _Cell:
    """One cell of a sweep: everything its episodes share (they differ in seed/repeat)."""

    domain: str
    scenario: str
    agents: tuple[Any, ...]
    params: Any
    seeds: tuple[int, ...]
    labels: dict[str, Any]
    fork: ForkPlan | None = None
    fork_info: Mapping[str, Any] | None = None


class _Episodes(Sequence[PlannedEpisode]):
    """What a plan's episodes and a view of some of them share: episodes by position, a
    slice is an :class:`EpisodeView` of the same base, equality with any sequence."""

    def _positions(self) -> Sequence[int]:
        """The positions in :meth:`_base` of these episodes, in order."""
        raise NotImplementedError

    def _base(self) -> Sequence[PlannedEpisode]:
        """The sequence the positions index."""
        raise NotImplementedError

    def _episode(self, k: int) -> PlannedEpisode:
        """The episode at position ``k`` of the base."""
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._positions())

    @overload
    def __getitem__(self, i: int) -> PlannedEpisode: ...

    @overload
    def __getitem__(self, i: slice) -> EpisodeView: ...

    def __getitem__(self, i: int | slice) -> PlannedEpisode | EpisodeView:
        if isinstance(i, slice):
            part = self._positions()[i]
            return EpisodeView(self._base(), part if isinstance(part, array)
                               else array("q", part))
        return self._episode(self._positions()[i])

    def __iter__(self) -> Iterator[PlannedEpisode]:
        return (self._episode(k) for k in self._positions())

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same episodes (a list included)."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                      strict=True))

    __hash__ = None  # type: ignore[assignment]


class PlanEpisodes(_Episodes):
    """A plan's episodes in execution order, each built when it is read.

    Per episode only its id and four small integers are held (cell, seed index,
    repetition, seq: about 90 bytes), never its spec: a 10^6-episode plan costs about
    90 MB instead of several GB. Indexing with a slice gives an :class:`EpisodeView`.
    """

    def __init__(self, cells: list[_Cell], ids: list[str], cell: array[int], si: array[int],
                 rep: array[int], seq: array[int]) -> None:
        self._cells, self.ids = cells, ids
        self._cell, self._si, self._rep, self._seq = cell, si, rep, seq

    def _positions(self) -> Sequence[int]:
        return range(len(self.ids))

    def _base(self) -> Sequence[PlannedEpisode]:
        return self

    def _episode(self, k: int) -> PlannedEpisode:
        ci, si, rep = self._cell[k], self._si[k], self._rep[k]
        c = self._cells[ci]
        spec = EpisodeSpec(c.domain, c.scenario, c.agents, c.params, c.seeds[si])
        return PlannedEpisode(self.ids[k], spec, rep, c.labels, self._seq[k], (si, rep, ci),
                              c.fork, c.fork_info)


class EpisodeView(_Episodes):
    """Some of a plan's episodes (by position), e.g. the queue of a resumed run."""

    def __init__(self, base: Sequence[PlannedEpisode], index: array[int]) -> None:
        self._of, self._index = base, index

    def _positions(self) -> Sequence[int]:
        return self._index

    def _base(self) -> Sequence[PlannedEpisode]:
        return self._of

    def _episode(self, k: int) -> PlannedEpisode:
        return self._of[k]

    @property
    def ids(self) -> list[str]:
        """The episodes' ids."""
        ids = episode_ids_of(self._of)
        return [ids[k] for k in self._index]


def episode_ids_of(episodes: Sequence[PlannedEpisode]) -> Sequence[str]:
    """The ids of a plan's episodes without building their specs where possible."""
    ids = getattr(episodes, "ids", None)
    return ids if ids is not None else [e.id for e in episodes]


def subset(episodes: Sequence[PlannedEpisode], index: Iterable[int]) -> Sequence[PlannedEpisode]:
    """The episodes at ``index`` (in that order), as a view when the plan is lazy."""
    return EpisodeView(episodes, array("q", index))


@dataclass
class Plan:
    """The expanded episodes of a config, in execution order (seed-major).

    ``episodes`` is a :class:`PlanEpisodes` from :func:`expand` (built on access), or
    any sequence of :class:`PlannedEpisode`.
    """

    episodes: Sequence[PlannedEpisode]
    duplicates: int = 0
    domains: dict[str, Domain] = field(default_factory=dict)


def import_plugins(modules: tuple[str, ...] | list[str]) -> None:
    """Import plugins (each registers its domains or agents on import).

    A plugin is a module name (``mypkg.agents``; a module in the current folder is found
    too, without ``PYTHONPATH=.``) or the path of a Python file (``./myagent.py``, any name
    ending in ``.py`` or holding a ``/``). A missing module or file raises
    :class:`ImportError` naming it.
    """
    for mod in modules:
        if _is_plugin_file(mod):
            _import_file(mod)
        else:
            _import_module(mod)


def _is_plugin_file(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or os.sep in spec


def _import_module(name: str) -> None:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        top = name.partition(".")[0]
        if exc.name != top or cwd in sys.path or not (
                Path(cwd, f"{top}.py").is_file() or Path(cwd, top).is_dir()):
            raise
        # the `accord` script does not put the current folder on the path (python -m does)
        sys.path.append(cwd)
        importlib.import_module(name)


def _import_file(given: str) -> None:
    import importlib.util

    path = Path(given)
    full = path.expanduser().resolve()
    if not full.is_file():
        raise ImportError(f"no plugin file {given}" + (
            "" if path.suffix == ".py" else " (a module name has no '/')"), name=given)
    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__file__", None) and Path(loaded.__file__ or "") == full:
            return  # imported already (a second --plugin, a worker's second episode)
    name = full.stem if full.stem.isidentifier() and full.stem not in sys.modules else (
        "accord_plugin_" + re.sub(r"\W", "_", full.stem))
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load plugin file {given}", name=given)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def expand(config: ExperimentConfig, validate: bool = True) -> Plan:
    """Import plugins, resolve domains and expand every sweep as a cartesian product.

    Execution order is seed-major (every cell's first seed, then every cell's second
    seed ...) so a run stopped early still has balanced cells.
    """
    w = config.where
    try:
        import_plugins(config.plugins)
    except ImportError as exc:
        raise w.error("plugins", f"cannot import plugin: {exc}") from None
    cells: list[_Cell] = []
    ids: list[str] = []
    a_cell, a_si, a_rep = array("l"), array("l"), array("l")
    seen: set[str] = set()
    dup = 0
    domains: dict[str, Domain] = {}
    cell = 0
    resolved: list[tuple[Domain, tuple[str, ...]]] = []
    total = 0
    for sweep in config.sweeps:
        try:
            domain = get_domain(sweep.domain)
        except KeyError as exc:
            raise w.error(sweep.domain_key, str(exc.args[0])) from None
        domains[domain.name] = domain
        scenarios = sweep.scenarios
        if scenarios == ("all",):
            scenarios = tuple(domain.scenarios())
            if not scenarios:  # e.g. a data set that is not installed where the domain looks
                hint = getattr(domain, "scenarios_hint", "")
                raise w.error(sweep.scenario_key,
                              f"'scenarios: all' found no {domain.name} scenarios"
                              + (f" ({hint})" if hint else "") + "; list them explicitly")
        sizes = (len(scenarios), len(sweep.lineups), len(sweep.params), len(sweep.seeds),
                 sweep.repeat)
        total += math.prod(sizes)
        if total > w.max_episodes:  # 'scenarios: all' resolved: check before planning
            raise w.too_many(sweep.scenario_key if sweep.key == "<root>" else sweep.key,
                             total, episode_parts(*sizes))
        resolved.append((domain, scenarios))
    for sweep, (domain, scenarios) in zip(config.sweeps, resolved, strict=True):
        if sweep.fork is not None:
            from accord.bench.fork import fork_id

            for fc in _fork_cells(config, sweep, domain, validate):
                for rep in range(sweep.repeat):
                    spec = EpisodeSpec(fc.domain, fc.scenario, fc.agents, fc.params,
                                       fc.seeds[0])
                    assert fc.fork_info is not None
                    eid = fork_id(str(fc.fork_info["parent"]), int(fc.fork_info["at"]), spec,
                                  rep)
                    if eid in seen:
                        dup += 1
                        continue
                    seen.add(eid)
                    ids.append(eid)
                    a_cell.append(cell)
                    a_si.append(0)
                    a_rep.append(rep)
                cells.append(fc)
                cell += 1
            continue
        for scenario in scenarios:
            for lu in sweep.lineups:
                for params in sweep.params:
                    first = EpisodeSpec(sweep.domain, scenario, lu.agents, params,
                                        sweep.seeds[0])
                    if validate:
                        _validate(config, sweep.key, domain, first)
                    labels = {"lineup": lu.label(), "agents": lu.agent_labels()}
                    cells.append(_Cell(sweep.domain, scenario, lu.agents, params,
                                       tuple(sweep.seeds), labels))
                    for si, seed in enumerate(sweep.seeds):
                        spec = EpisodeSpec(sweep.domain, scenario, lu.agents, params, seed)
                        for rep in range(sweep.repeat):
                            eid = episode_id(spec, rep)
                            if eid in seen:
                                dup += 1
                                continue
                            seen.add(eid)
                            ids.append(eid)
                            a_cell.append(cell)
                            a_si.append(si)
                            a_rep.append(rep)
                    cell += 1
    del seen
    # execution order is seed-major; seq stays the position in the cell-major expansion
    width_rep = max(a_rep, default=0) + 1
    order = sorted(range(len(ids)),
                   key=lambda k: (a_si[k] * width_rep + a_rep[k]) * max(cell, 1) + a_cell[k])
    episodes = PlanEpisodes(cells, [ids[k] for k in order], array("l", (a_cell[k] for k in order)),
                            array("l", (a_si[k] for k in order)),
                            array("l", (a_rep[k] for k in order)), array("l", order))
    return Plan(episodes, dup, domains)


def _fork_cells(config: ExperimentConfig, sweep: Any, domain: Domain, validate: bool
                ) -> list[_Cell]:
    """The cells of a ``fork:`` sweep: every finished episode of the sweep's domain in the
    source store, at each round, with each line-up and parameter set (issue 29)."""
    from accord.bench.fork import Parent, load_parent, pinned_params
    from accord.bench.store import Store, StoreError

    src = sweep.fork
    w = config.where
    try:
        with Store.open_readonly(src.source) as st:
            rows = [r for r in st.episodes(src.run) if r.status == "done"
                    and r.outcome != "error" and r.spec.get("domain") == domain.name]
    except StoreError as exc:
        raise w.error(join_key(src.key, "from"), str(exc)) from None
    if not rows:
        raise w.error(join_key(src.key, "from"), f"no finished {domain.name} episodes in "
                      f"{src.source}" + (f" (run {src.run})" if src.run else ""))
    cells: list[_Cell] = []
    for row in rows:
        parent: Parent = load_parent(src.source, row.id, row.run)
        played = rounds_played(parent.events)
        base = parent.spec()
        for at in src.at:
            if at > played:
                continue  # a short parent has no round ``at`` to fork from
            turns = turns_from_events(parent.events, at)
            for lu in sweep.lineups:
                changed = tuple(str(i + 1) for i, (a, b) in
                                enumerate(zip(lu.agents, base.agents, strict=False))
                                if str(a) != str(b))
                for params in sweep.params:
                    pinned = pinned_params(row) if changed else dict(base.params)
                    merged = {**pinned, **params}
                    spec = EpisodeSpec(base.domain, base.scenario, lu.agents, merged, base.seed)
                    if validate:
                        _validate(config, sweep.key, domain, spec)
                    info = {"parent": row.id, "parent_run": row.run, "at": at,
                            "source": src.source,
                            "changes": {"agents": {p: str(lu.agents[int(p) - 1])
                                                   for p in changed}} if changed else {}}
                    labels = {"lineup": lu.label(), "agents": lu.agent_labels(),
                              "parent": row.id, "at": at}
                    cells.append(_Cell(base.domain, base.scenario, lu.agents, merged,
                                       (base.seed,), labels,
                                       ForkPlan(row.id, at, turns, changed), info))
    if not cells:
        raise w.error(join_key(src.key, "at"), f"no episode in {src.source} reaches round "
                      f"{min(src.at)}")
    return cells


#: agent kinds that need a person at a seat (a terminal or the play page): never in a bench
SEATED_KINDS = frozenset({"human"})


def _validate(config: ExperimentConfig, key: str, domain: Domain, spec: EpisodeSpec) -> None:
    seated = sorted({str(getattr(a, "kind", a)) for a in spec.agents} & SEATED_KINDS)
    if seated:
        raise config.where.error(
            _blame(config, key, "agents"), f"agent {seated[0]!r} needs a person at a seat: "
            "play it with `accord run` in a terminal or on the play page (`accord serve "
            "--play`); `accord bench` runs unattended")
    try:
        domain.validate(spec)
    except (ValueError, KeyError, TypeError, OSError) as exc:
        msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        agents = clip(", ".join(str(a) for a in spec.agents))
        raise config.where.error(
            _blame(config, key, msg), f"scenario {short(spec.scenario)}, agents [{agents}], "
            f"params {short(dict(spec.params))}: {clip(msg, 800)}") from None


def _blame(config: ExperimentConfig, key: str, message: str) -> str:
    """The config key a domain's complaint is most likely about (for the line number)."""
    low = message.lower()
    part = ("params" if "param" in low else
            "agents" if any(w in low for w in ("agent", "part", "line-up", "option")) else
            "scenarios" if "scenario" in low or "datapoint" in low else None)
    if part is None:
        return key
    candidate = part if key == "<root>" else f"{key}.{part}"
    if config.where.line(candidate) is None:
        return key
    named = _PARAM_NAMED.search(message) if part == "params" else None
    if named:  # the line of that very parameter, when the config names it once
        exact = re.compile(rf"{re.escape(candidate)}(\[\d+\])?\.{re.escape(named.group(1))}")
        paths = [path for path in config.where.lines if exact.fullmatch(path)]
        return paths[0] if len(paths) == 1 else candidate
    return candidate


#: a domain's complaint about one of its parameters, as
#: :func:`accord.domains.params.read_params` words it ("games parameter 'x': ...")
_PARAM_NAMED = re.compile(r"[\w-]+ parameter '([^']+)'")
