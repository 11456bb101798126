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
from dataclasses import dataclass, field
from typing import Any

from accord.bench.config import ExperimentConfig, episode_parts
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

    def spec_record(self) -> dict[str, Any]:
        """The stored (credential-free) spec: ``EpisodeSpec.to_dict()`` plus ``repeat``."""
        return {**_MASK.clean(self.spec.to_dict()), "repeat": self.repeat}


@dataclass
class Plan:
    """The expanded episodes of a config, in execution order (seed-major)."""

    episodes: list[PlannedEpisode]
    duplicates: int = 0
    domains: dict[str, Domain] = field(default_factory=dict)


def import_plugins(modules: tuple[str, ...] | list[str]) -> None:
    """Import plugin modules (each registers its domains or agents on import)."""
    for mod in modules:
        importlib.import_module(mod)


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
    episodes: list[PlannedEpisode] = []
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
        for scenario in scenarios:
            for lu in sweep.lineups:
                for params in sweep.params:
                    first = EpisodeSpec(sweep.domain, scenario, lu.agents, params,
                                        sweep.seeds[0])
                    if validate:
                        _validate(config, sweep.key, domain, first)
                    labels = {"lineup": lu.label(), "agents": lu.agent_labels()}
                    for si, seed in enumerate(sweep.seeds):
                        spec = EpisodeSpec(sweep.domain, scenario, lu.agents, params, seed)
                        for rep in range(sweep.repeat):
                            eid = episode_id(spec, rep)
                            if eid in seen:
                                dup += 1
                                continue
                            seen.add(eid)
                            episodes.append(PlannedEpisode(eid, spec, rep, labels,
                                                           len(episodes), (si, rep, cell)))
                    cell += 1
    episodes.sort(key=lambda e: e.order)
    return Plan(episodes, dup, domains)


def _validate(config: ExperimentConfig, key: str, domain: Domain, spec: EpisodeSpec) -> None:
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
    return candidate if config.where.line(candidate) is not None else key
