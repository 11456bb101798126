"""Agent line-ups in bench configs: lists of specs, named line-ups and position products."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.bench.yamlpos import join_key
from accord.core.safeload import short

if TYPE_CHECKING:
    from accord.bench.config import Where


@dataclass(frozen=True)
class Lineup:
    """The agents of one episode, in position order, with optional display labels."""

    agents: tuple[AgentSpec, ...]
    name: str | None = None
    labels: tuple[str | None, ...] = ()

    def agent_labels(self) -> list[str]:
        """Per-position labels: the given name, else the spec string."""
        given = self.labels or (None,) * len(self.agents)
        return [g or str(a) for g, a in zip(given, self.agents, strict=True)]

    def label(self) -> str:
        """The line-up's label: its name, else ``a vs b``."""
        return self.name or " vs ".join(self.agent_labels())


def _agent(w: Where, key: str, raw: Any) -> tuple[AgentSpec, str | None]:
    label: str | None = None
    if isinstance(raw, Mapping):
        raw = dict(raw)
        label = raw.pop("name", None)
        if label is not None and not isinstance(label, str):
            raise w.error(join_key(key, "name"), f"expected a string label, got {short(label)}")
    elif not isinstance(raw, str):
        raise w.error(key, f"expected an agent spec (string or mapping), got {short(raw)}")
    try:
        return parse_agent_spec(raw), label
    except AgentSpecError as exc:
        raise w.error(key, str(exc)) from None


def _lineup(w: Where, key: str, raw: Any) -> Lineup:
    name: str | None = None
    if isinstance(raw, Mapping):
        extra = sorted(set(raw) - {"name", "agents"})
        if extra or "agents" not in raw:
            raise w.error(key, "a line-up mapping needs 'agents' (and optionally 'name'); "
                          + (f"unknown key(s) {extra}" if extra else "'agents' is missing"))
        name = raw.get("name")
        if name is not None and not isinstance(name, str):
            raise w.error(join_key(key, "name"), f"expected a string, got {short(name)}")
        key, raw = join_key(key, "agents"), raw["agents"]
    if isinstance(raw, str):
        items: list[Any] = [p.strip() for p in raw.split(",") if p.strip()]
    elif isinstance(raw, list):
        items = raw
    else:
        raise w.error(key, f"expected a line-up (list of agent specs), got {short(raw)}")
    if not items:
        raise w.error(key, "a line-up needs at least one agent")
    parsed = [_agent(w, join_key(key, i), a) for i, a in enumerate(items)]
    return Lineup(tuple(a for a, _ in parsed), name, tuple(lb for _, lb in parsed))


def _product(w: Where, key: str, raw: Any) -> list[Lineup]:
    if not isinstance(raw, list) or not raw:
        raise w.error(key, "expected a list of per-position choice lists")
    sizes = [len(c) if isinstance(c, list) else 1 for c in raw]
    if math.prod(sizes) > w.max_episodes:  # checked before the product is built
        raise w.too_many(key, math.prod(sizes), " x ".join(map(str, sizes)) + " line-ups")
    positions = []
    for i, choices in enumerate(raw):
        pkey = join_key(key, i)
        if not isinstance(choices, list) or not choices:
            raise w.error(pkey, "expected a non-empty list of agent specs for this position")
        positions.append([_agent(w, join_key(pkey, j), c) for j, c in enumerate(choices)])
    return [Lineup(tuple(a for a, _ in combo), None, tuple(lb for _, lb in combo))
            for combo in itertools.product(*positions)]


def parse_agents(w: Where, key: str, raw: Any) -> tuple[Lineup, ...]:
    """Parse the ``agents`` key of a sweep into line-ups."""
    if isinstance(raw, Mapping):
        if set(raw) != {"product"}:
            raise w.error(key, "a mapping here must be {product: [[choices for position 0], "
                          "[choices for position 1], ...]}")
        lineups = _product(w, join_key(key, "product"), raw["product"])
    elif isinstance(raw, list) and raw:
        lineups = [_lineup(w, join_key(key, i), lu) for i, lu in enumerate(raw)]
    else:
        raise w.error(key, "expected a non-empty list of line-ups, e.g. [[boulware, conceder]]")
    seen: dict[tuple[str, ...], int] = {}
    for i, lu in enumerate(lineups):
        sig = tuple(str(a) for a in lu.agents)
        if sig in seen and isinstance(raw, list):
            raise w.error(join_key(key, i), f"same line-up as {join_key(key, seen[sig])}")
        seen[sig] = i
    return tuple(lineups)
