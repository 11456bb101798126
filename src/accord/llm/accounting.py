"""Token and cost accounting per call, per agent and per episode.

:class:`UsageTracker` receives every :class:`~accord.llm.types.Completion` the
client returns (with its :class:`~accord.llm.types.CallScope`) and aggregates them.
Token counts and ``cost`` include answers served from accord's cache (they are the
counts recorded when the answer was fetched), so a replayed study reports the same
usage as the recorded one; ``cache_hits`` and ``spent`` say what this run actually
fetched and paid. ``cost``/``spent`` are ``None`` as soon as one call's model has no
price (an unknown price is not a zero price).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from accord.llm.prices import PriceTable, load_prices
from accord.llm.types import CallScope, Completion


def _add_cost(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


@dataclass
class UsageTotals:
    """Aggregated usage of a set of calls."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    latency: float = 0.0
    cost: float | None = 0.0
    spent: float | None = 0.0

    def add(self, completion: Completion, cost: float | None) -> None:
        """Count one call that cost ``cost`` dollars (``None``: unknown)."""
        u = completion.usage
        self.calls += 1
        self.prompt_tokens += u.prompt_tokens
        self.completion_tokens += u.completion_tokens
        self.cached_tokens += u.cached_tokens
        self.cache_write_tokens += u.cache_write_tokens
        self.latency += completion.latency
        self.cost = _add_cost(self.cost, cost)
        if completion.from_cache:
            self.cache_hits += 1
        else:
            self.spent = _add_cost(self.spent, cost)

    def merge(self, other: UsageTotals) -> UsageTotals:
        """A new total of ``self`` and ``other``."""
        out = UsageTotals()
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            setattr(out, f.name, _add_cost(a, b) if f.name in ("cost", "spent") else a + b)
        return out

    @property
    def cached_share(self) -> float:
        """Share of prompt tokens served from the provider's prefix cache."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (costs rounded to 1e-8 dollars)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["latency"] = round(self.latency, 6)
        for name in ("cost", "spent"):
            if out[name] is not None:
                out[name] = round(out[name], 8)
        return out


Cell = tuple[str | None, str | None, str]


class UsageTracker:
    """Collects calls by (episode, agent, model); thread-safe."""

    def __init__(self, prices: PriceTable | None = None) -> None:
        self.prices = prices if prices is not None else load_prices()
        self._cells: dict[Cell, UsageTotals] = defaultdict(UsageTotals)
        self._lock = threading.Lock()

    def record(self, completion: Completion, scope: CallScope | None = None) -> float | None:
        """Count ``completion``; return its estimated cost (``None`` if unknown)."""
        scope = scope or CallScope()
        cost = self.prices.cost(completion.model, completion.usage)
        with self._lock:
            self._cells[(scope.episode, scope.agent, completion.model)].add(completion, cost)
        return cost

    def _sum(self, keep: Callable[[Cell], bool]) -> UsageTotals:
        with self._lock:
            items = [v for k, v in self._cells.items() if keep(k)]
        total = UsageTotals()
        for item in items:
            total = total.merge(item)
        return total

    def _group(self, part: Callable[[Cell], Any], keep: Callable[[Cell], bool] = lambda c: True
               ) -> dict[Any, UsageTotals]:
        with self._lock:
            cells = list(self._cells.items())
        out: dict[Any, UsageTotals] = {}
        for key, value in cells:
            if keep(key):
                name = part(key)
                out[name] = out.get(name, UsageTotals()).merge(value)
        return out

    def totals(self) -> UsageTotals:
        """All calls."""
        return self._sum(lambda c: True)

    def get(self, episode: str | None = None, agent: str | None = None) -> UsageTotals:
        """Calls of one agent in one episode."""
        return self._sum(lambda c: c[0] == episode and c[1] == agent)

    def by_agent(self) -> dict[str | None, UsageTotals]:
        """Totals per agent, over all episodes."""
        return self._group(lambda c: c[1])

    def by_episode(self) -> dict[str | None, UsageTotals]:
        """Totals per episode."""
        return self._group(lambda c: c[0])

    def by_model(self) -> dict[str, UsageTotals]:
        """Totals per model string."""
        return self._group(lambda c: c[2])

    def episode(self, episode: str | None) -> dict[str | None, UsageTotals]:
        """Totals per agent within one episode (what the runner stores per record)."""
        return self._group(lambda c: c[1], lambda c: c[0] == episode)

    def forget(self, episodes: Iterable[str | None]) -> None:
        """Drop the cells of finished episodes (long benchmark runs)."""
        gone = set(episodes)
        with self._lock:
            for key in [k for k in self._cells if k[0] in gone]:
                del self._cells[key]

    def to_dict(self) -> dict[str, Any]:
        """Totals, per agent and per model, JSON-ready."""
        return {"totals": self.totals().to_dict(),
                "by_agent": {str(k): v.to_dict() for k, v in self.by_agent().items()},
                "by_model": {k: v.to_dict() for k, v in self.by_model().items()}}
