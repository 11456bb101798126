"""Seeds that mean something: find the cells of a spec whose seeds cannot change anything.

A cell (scenario x line-up x parameter set) whose agents are all declared deterministic
(:meth:`accord.domains.base.Domain.deterministic`, from each agent kind's ``stochastic``
declaration in its registry) plays the same episode for every seed and repetition, so its
spread reads "± 0" and its n counts copies. ``accord bench`` still runs every planned
episode (results stay comparable with stochastic cells and with earlier runs of the spec)
and says so: :func:`seed_warnings` gives the sentences it prints to stderr and puts in the
report and its ``--json`` summary.
"""

from __future__ import annotations

from accord.bench.config import ExperimentConfig
from accord.domains import get_domain
from accord.domains.base import EpisodeSpec

#: at most this many line-up labels are named in one warning
MAX_NAMED = 6


def seed_warnings(config: ExperimentConfig) -> list[str]:
    """One sentence per sweep that has cells of deterministic agents run more than once."""
    out: list[str] = []
    for sweep in config.sweeps:
        runs = len(sweep.seeds) * sweep.repeat
        if runs <= 1 or not sweep.scenarios:
            continue
        domain = get_domain(sweep.domain)
        cells = len(sweep.lineups) * len(sweep.params) * len(sweep.scenarios)
        fixed: dict[str, None] = {}
        n = 0
        for lineup in sweep.lineups:
            for params in sweep.params:
                spec = EpisodeSpec(sweep.domain, sweep.scenarios[0], lineup.agents,
                                   dict(params), sweep.seeds[0])
                if domain.deterministic(spec):
                    n += len(sweep.scenarios)
                    fixed[lineup.label()] = None
        if not n:
            continue
        names = list(fixed)
        shown = ", ".join(names[:MAX_NAMED]) + (f" and {len(names) - MAX_NAMED} more"
                                                if len(names) > MAX_NAMED else "")
        where = "" if sweep.key == "<root>" else f" ({sweep.key})"
        repeats = f" x {sweep.repeat} repeats" if sweep.repeat > 1 else ""
        out.append(f"{n} of {cells} cells{where} have only deterministic agents ({shown}) "
                   f"and run {runs} times each ({len(sweep.seeds)} seeds{repeats}): their "
                   "episodes are identical, so their spread reads 0. Add a stochastic agent "
                   "(e.g. random, or an LLM at temperature > 0) or use seeds: 1 for them.")
    return out


def model_warnings(config: ExperimentConfig) -> list[str]:
    """One sentence per sweep line-up whose mediator, judge or scorer runs on a party's
    model (seed 002, V15: :func:`accord.agents.hygiene.same_model_roles`)."""
    from accord.agents.hygiene import same_model_roles

    out: dict[str, None] = {}
    for sweep in config.sweeps:
        for lineup in sweep.lineups:
            for params in sweep.params:
                for line in same_model_roles(lineup.agents, params):
                    out[f"{lineup.label()}: {line}"] = None
    return list(out)


def plan_warnings(config: ExperimentConfig) -> list[str]:
    """Everything :command:`accord bench` says about a plan before running it."""
    return seed_warnings(config) + model_warnings(config)


__all__ = ["model_warnings", "plan_warnings", "seed_warnings"]
