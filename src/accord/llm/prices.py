"""Cost estimates from an editable price table (``data/prices.yaml``).

:func:`load_prices` reads, in order of precedence, an explicit path, the file named
by ``ACCORD_PRICES``, or the packaged table. A model that matches no entry has an
unknown cost (``None``), never 0.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from accord.core.names import did_you_mean
from accord.core.safeload import LoadError, load_yaml, parse_yaml, short, unknown_keys
from accord.llm.types import Usage

PRICES_ENV = "ACCORD_PRICES"
_FIELDS = ("input", "output", "cached_input", "cache_write")


class PriceTableError(ValueError):
    """A price file that cannot be read; the message names the file and key."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; cached/cache-write default to the input price."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def cost(self, usage: Usage) -> float:
        """Dollars for one call with ``usage``."""
        cached = usage.cached_tokens
        written = usage.cache_write_tokens
        fresh = max(0, usage.prompt_tokens - cached - written)
        total = (fresh * self.input
                 + cached * (self.input if self.cached_input is None else self.cached_input)
                 + written * (self.input if self.cache_write is None else self.cache_write)
                 + usage.completion_tokens * self.output)
        return total / 1_000_000


class PriceTable:
    """Model string -> :class:`Price`: exact keys first, then patterns in file order.

    Which pattern a model string matches is remembered per model (until keys are added
    to or removed from ``entries``); replace a pattern's price by building a new table.
    """

    def __init__(self, entries: Mapping[str, Price], source: str = "<memory>") -> None:
        self.entries = dict(entries)
        self.source = source
        #: pattern lookups per model string (every call is priced; the scan is not free)
        self._matched: dict[str, Price | None] = {}
        self._matched_for: tuple[str, ...] = ()

    def price(self, model: str) -> Price | None:
        """The price of ``model`` (an accord model string), or ``None`` if unknown."""
        found = self.entries.get(model)
        if found is not None:
            return found
        keys = tuple(self.entries)
        if keys != self._matched_for:  # entries changed since the last scan
            self._matched, self._matched_for = {}, keys
        if model in self._matched:
            return self._matched[model]
        match = None
        for pattern, price in self.entries.items():
            if any(c in pattern for c in "*?[") and fnmatch.fnmatchcase(model, pattern):
                match = price
                break
        self._matched[model] = match
        return match

    def cost(self, model: str, usage: Usage) -> float | None:
        """Dollars for one call of ``model`` with ``usage``; ``None`` if the price is unknown."""
        price = self.price(model)
        return None if price is None else price.cost(usage)


def parse_prices(data: Any, source: str) -> PriceTable:
    """A :class:`PriceTable` from the YAML structure of a price file."""
    if not isinstance(data, Mapping) or not isinstance(data.get("models"), Mapping):
        raise PriceTableError(f"{source}: expected a mapping with a 'models' mapping")
    bad = unknown_keys(data, ("as_of", "currency", "models", "notes", "source"))
    if bad is not None:
        raise PriceTableError(f"{source}: {bad[1]}")
    entries: dict[str, Price] = {}
    for model, spec in data["models"].items():
        where = f"{source}: models.{model}"
        if not isinstance(spec, Mapping):
            raise PriceTableError(f"{where}: expected a mapping of prices, got {short(spec)}")
        unknown = sorted(str(k) for k in set(spec) - set(_FIELDS))
        if unknown:
            raise PriceTableError(f"{where}: unknown field(s) {short(unknown)}"
                                  f"{did_you_mean(unknown[0], _FIELDS)}; "
                                  f"allowed: {', '.join(_FIELDS)}")
        for required in ("input", "output"):
            if required not in spec:
                raise PriceTableError(f"{where}: missing '{required}'")
        values: dict[str, float | None] = {}
        for name in _FIELDS:
            raw = spec.get(name)
            if raw is None:
                values[name] = None
                continue
            if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
                raise PriceTableError(f"{where}.{name}: expected a non-negative number, "
                                      f"got {short(raw)}")
            values[name] = float(raw)
        entries[str(model)] = Price(values["input"] or 0.0, values["output"] or 0.0,
                                    values["cached_input"], values["cache_write"])
    return PriceTable(entries, source)


PACKAGED = "accord/llm/data/prices.yaml"


def _packaged_text() -> str:
    return resources.files("accord.llm").joinpath("data/prices.yaml").read_text("utf-8")


@lru_cache(maxsize=1)
def _packaged_prices() -> PriceTable:
    """The packaged table, parsed once per process (every :class:`UsageTracker`, so every
    LLM runtime, reads it: 10-15 ms of YAML each time). Never handed out itself: callers
    get a new :class:`PriceTable` over its (frozen) prices."""
    try:
        data = parse_yaml(_packaged_text(), PACKAGED).data
    except LoadError as exc:
        prefix = "cannot read price table " if exc.stage == "read" else ""
        raise PriceTableError(f"{prefix}{exc}") from None
    return parse_prices(data, PACKAGED)


def load_prices(path: str | Path | None = None, env: Mapping[str, str] | None = None
                ) -> PriceTable:
    """The price table from ``path``, else ``$ACCORD_PRICES``, else the packaged file."""
    env = os.environ if env is None else env
    chosen = path or env.get(PRICES_ENV) or None
    if chosen is None:  # a fresh table (its entries may be edited) over shared prices
        packaged = _packaged_prices()
        return PriceTable(packaged.entries, packaged.source)
    source = str(chosen)
    try:
        data = load_yaml(Path(chosen)).data
    except LoadError as exc:
        prefix = "cannot read price table " if exc.stage == "read" else ""
        raise PriceTableError(f"{prefix}{exc}") from None
    return parse_prices(data, source)
