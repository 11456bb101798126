"""Helpers for tests that compare whole episodes: random scenarios and an episode's record
and log without its times."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario
from accord.protocols.engine import EpisodeResult


def random_scenario(n_issues: int, n_values: int, n_parties: int, seed: int, *,
                    batnas: Sequence[float] | None = None, random_batna: float = 0.0
                    ) -> Scenario:
    """The benchmark's random linear-additive scenario (``benchmarks/bench_core.py``):
    parties ``a``, ``b``, ... with seeded weights and value scores. Each party's BATNA is
    ``batnas[i]`` when given, else drawn after its scores as ``random_batna`` times a
    uniform number (0 by default, drawing nothing)."""
    rng = np.random.default_rng(seed)
    names = [f"i{k}" for k in range(n_issues)]
    space = OutcomeSpace.from_mapping({n: list(range(n_values)) for n in names})
    parties = []
    for p in range(n_parties):
        w = rng.random(n_issues)
        w /= w.sum()
        weights = {n: float(x) for n, x in zip(names, w, strict=True)}
        scores: dict[str, dict[int | str, float]] = {
            n: {v: float(s) for v, s in enumerate(rng.random(n_values))} for n in names}
        if batnas is not None:
            batna = float(batnas[p])
        elif random_batna:
            batna = float(rng.random() * random_batna)
        else:
            batna = 0.0
        parties.append(Party("abcdefgh"[p], LinearAdditiveUtility(weights, scores), batna))
    return Scenario(f"random-{n_issues}x{n_values}-{n_parties}p-{seed}", space, tuple(parties))


def rendered(result: EpisodeResult) -> list[Any]:
    """The episode without its times, JSON-plain: the summary, then every event."""
    summary = result.summary()
    summary.pop("wall_time")
    events = []
    for ev in result.trajectory:
        d = ev.to_dict()
        d.pop("t", None)
        events.append(d)
    return [json.loads(json.dumps(summary, sort_keys=True, default=str)),
            *json.loads(json.dumps(events, sort_keys=True, default=str))]


__all__ = ["random_scenario", "rendered"]
