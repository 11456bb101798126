"""Aggregation of stored episodes: group by spec fields or categorical metrics, then
mean ± SD, mean ± SE, counts and rates per metric (pure functions over rows).

Fields of an episode for grouping: ``run``, ``domain``, ``scenario``, ``agents`` (the
line-up label; alias ``lineup``), ``agent0``, ``agent1`` ... (each position), every
parameter as ``params.<name>`` (or just ``<name>``), ``seed``, ``repeat``, ``status``,
``outcome``, and any metric as ``metrics.<name>`` (or just ``<name>``). Numbers are
averaged; booleans become rates (mean of 0/1, with the same SD and SE formulas).
Statistics use only ``done`` episodes; SD is the sample SD (n - 1), SE = SD / sqrt(n).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.bench.store import EpisodeRow

#: spec fields that identify a cell; seeds and repetitions are what gets averaged over
_CELL_FIELDS = ("run", "domain", "scenario", "agents")


def error_line(summary: Mapping[str, Any] | None) -> str:
    """The first line of an ``error`` episode's reason (its summary's ``detail``)."""
    detail = str((summary or {}).get("detail") or "").strip()
    return detail.splitlines()[0] if detail else "the episode ended in status error " \
        "(no detail recorded)"


def _flags(row: EpisodeRow) -> dict[str, Any] | None:
    return None if row.summary is None else (row.summary.get("flags") or {})


def _utility_leak(row: EpisodeRow) -> bool | None:
    """A party's public text disclosed its private values (the leak guard's flag)."""
    met = row.metrics or {}
    if "utility_leak" in met:
        return bool(met["utility_leak"])
    flags = _flags(row)
    return None if flags is None else any((flags.get("utility_leak") or {}).values())


def _sycophancy(row: EpisodeRow) -> bool | None:
    """A party accepted a deal worth less than its BATNA."""
    met = row.metrics or {}
    if "sycophancy" in met:
        return bool(met["sycophancy"])
    flags = _flags(row)
    if flags is None:
        return None
    below = flags.get("accepted_below_batna") or {}
    return bool(flags.get("sycophancy")) or any(below.values())


def _error_rate(row: EpisodeRow) -> bool | None:
    """The episode ended in an error (a model or agent fault), not a negotiation end."""
    return row.outcome == "error"


def _invalid_rate(row: EpisodeRow) -> bool | None:
    """The episode had at least one invalid move, where the domain counts them."""
    total = (row.metrics or {}).get("invalid_total")
    return None if not isinstance(total, (int, float)) else total > 0


def _gap(key: str) -> Callable[[EpisodeRow], float | None]:
    def read(row: EpisodeRow) -> float | None:
        from accord.bench.optimality import episode_gaps  # numpy and the solvers: lazily

        g = episode_gaps(row)
        return None if g is None else g.values.get(key)

    return read


#: the gaps to the optimum (accord.bench.optimality: one function per domain)
GAP_METRICS = ("value_left", "gap_pareto", "gap_nash", "welfare_left", "gap_pure_ne",
               "gap_mixed_ne", "gap_po_ne", "gap_best", "gap_optimum", "optimum_ratio")
#: per-episode safety rates and optimality gaps every finished episode can answer (None:
#: this episode's domain or store does not say): asked for by name
#: (``accord results -m utility_leak,gap_pareto``)
DERIVED: dict[str, Callable[[EpisodeRow], bool | float | None]] = {
    "utility_leak": _utility_leak, "sycophancy": _sycophancy, "error_rate": _error_rate,
    "invalid_rate": _invalid_rate, **{k: _gap(k) for k in GAP_METRICS}}
#: the kind of each derived metric that is not a rate
DERIVED_KINDS: dict[str, str] = dict.fromkeys(GAP_METRICS, "number")
#: the derived metrics that read an episode's summary (its flags, its record)
NEEDS_SUMMARY = frozenset({"utility_leak", "sycophancy", *GAP_METRICS})


class AggregateError(ValueError):
    """An unknown group-by key or metric name (the message lists what exists)."""


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def episode_fields(row: EpisodeRow) -> dict[str, Any]:
    """The groupable spec fields of one episode (metrics excluded)."""
    spec = row.spec
    agents = list(row.labels.get("agents") or spec.get("agents", []))
    out: dict[str, Any] = {
        "run": row.run, "domain": spec.get("domain"), "scenario": spec.get("scenario"),
        "agents": row.lineup,
        "seed": spec.get("seed"), "repeat": spec.get("repeat", 0),
        "status": row.status, "outcome": row.outcome,
    }
    for i, a in enumerate(agents):
        out[f"agent{i}"] = a
    for k, v in (spec.get("params") or {}).items():
        out[f"params.{k}"] = _hashable(v)
    return out


def metric_kinds(rows: Iterable[EpisodeRow]) -> dict[str, str]:
    """Each metric's kind, in first-seen order: ``number``, ``rate`` or ``category``."""
    kinds: dict[str, str] = {}
    for row in rows:
        _add_kinds(kinds, row)
    return kinds


def _add_kinds(kinds: dict[str, str], row: EpisodeRow) -> None:
    for name, val in (row.metrics or {}).items():
        if val is None:
            kinds.setdefault(name, "empty")
            continue
        k = ("rate" if isinstance(val, bool) else "number" if isinstance(val, (int, float))
             else "category")
        old = kinds.get(name, "empty")
        if old == "empty" or old == k:
            kinds[name] = k
        elif "category" in (old, k):
            kinds[name] = "category"
        else:
            kinds[name] = "number"


@dataclass
class Stat:
    """Summary of one metric over a group: n values, mean, sample SD, SE and sum."""

    kind: str
    n: int
    mean: float | None
    sd: float | None
    se: float | None
    total: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def summarize(values: Sequence[float], kind: str = "number") -> Stat:
    """n, mean, sample SD (None below 2 values), SE = SD / sqrt(n), and the sum."""
    n = len(values)
    if n == 0:
        return Stat(kind, 0, None, None, None, 0.0)
    total = math.fsum(values)
    mean = total / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1)) if n > 1 else None
    se = None if sd is None else sd / math.sqrt(n)
    return Stat(kind, n, mean, sd, se, total)


def usage_totals(usage: Mapping[str, Any] | None) -> dict[str, float]:
    """Numeric usage fields summed over agent roles (``{role: {input_tokens: ..}}``)."""
    out: dict[str, float] = {}

    def walk(prefix: str, val: Any) -> None:
        if isinstance(val, Mapping):
            for k, v in val.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(val, (int, float)) and not isinstance(val, bool):
            out[prefix] = out.get(prefix, 0.0) + float(val)

    for per_role in (usage or {}).values():
        walk("", per_role)
    return out


@dataclass
class Group:
    """One row of the aggregate table."""

    key: tuple[Any, ...]
    episodes: int = 0
    done: int = 0
    failed: int = 0
    pending: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    stats: dict[str, Stat] = field(default_factory=dict)
    wall_time: Stat | None = None
    usage: dict[str, float] = field(default_factory=dict)


@dataclass
class Aggregate:
    """Grouped statistics: the group-by keys, the metrics (name -> kind) and the groups."""

    group_by: list[str]
    metrics: dict[str, str]
    groups: list[Group]
    usage: dict[str, float] = field(default_factory=dict)


def resolve_key(name: str, fields: Mapping[str, Any], kinds: Mapping[str, str]) -> str:
    """The canonical field for a user's group-by key (``max_rounds`` -> ``params.max_rounds``)."""
    name = name.strip()
    if name == "lineup":
        return "agents"
    if name in fields:
        return name
    if f"params.{name}" in fields:
        return f"params.{name}"
    metric = name.removeprefix("metrics.")
    if metric in kinds:
        return f"metrics.{metric}"
    avail = sorted(set(fields) - {"id"}) + [f"metrics.{m}" for m in kinds]
    raise AggregateError(f"unknown group-by key {name!r}; available: {', '.join(avail)}")


class _Variation:
    """Which fields take more than one value over the rows seen (constant memory)."""

    def __init__(self) -> None:
        self.first: dict[str, Any] = {}
        self.varies: set[str] = set()
        self.rows = 0
        self.missing: set[str] = set()  # params absent from some row (None is a value)

    def add(self, f: Mapping[str, Any]) -> None:
        first = self.first
        if self.rows:
            for k in first.keys() - f.keys():
                if k.startswith("params.") and k not in self.missing:
                    self.missing.add(k)
                    if first[k] is not None:
                        self.varies.add(k)
        for k, v in f.items():
            if k not in first:
                first[k] = v
                if self.rows and v is not None:  # absent (None) in earlier rows
                    self.varies.add(k)
            elif k not in self.varies and first[k] != v:
                self.varies.add(k)
        self.rows += 1

    def group_by(self) -> list[str]:
        if not self.rows:
            return ["scenario", "agents"]
        keys = [k for k in _CELL_FIELDS if k not in ("run", "domain") or k in self.varies]
        keys += [k for k in self.first if k.startswith("params.") and k in self.varies]
        return keys


def default_group_by(rows: Sequence[EpisodeRow]) -> list[str]:
    """The cell of the sweep: run (if several), domain (if several), scenario, line-up and
    every parameter that varies; seeds and repetitions are averaged over."""
    var = _Variation()
    for r in rows:
        var.add(episode_fields(r))
    return var.group_by()


def aggregate(rows: Sequence[EpisodeRow], group_by: Sequence[str] | None = None,
              metrics: Sequence[str] | None = None) -> Aggregate:
    """Group ``rows`` and summarise each metric per group (groups in plan order)."""
    return aggregate_stream(lambda: rows, group_by, metrics)


def aggregate_stream(rows: Callable[[], Iterable[EpisodeRow]],
                     group_by: Sequence[str] | None = None,
                     metrics: Sequence[str] | None = None) -> Aggregate:
    """:func:`aggregate` over rows read twice from ``rows()`` (e.g.
    ``lambda: store.iter_episodes(run)``): one pass for the metric kinds and the default
    grouping, one to group. Memory grows with groups and finished episodes' numeric
    values (8 bytes each), not with rows' JSON."""
    kinds: dict[str, str] = {}
    var = _Variation()
    sample: dict[str, Any] = {}
    for r in rows():
        if r.status == "done":
            _add_kinds(kinds, r)
        f = episode_fields(r)
        sample.update(f)
        var.add(f)
    keys = list(group_by) if group_by else var.group_by()
    keys = [resolve_key(k, sample or episode_fields_template(), kinds) for k in keys]
    if metrics:
        unknown = [m for m in metrics if m not in kinds and m not in DERIVED]
        if unknown:
            extra = [m for m in DERIVED if m not in kinds]
            raise AggregateError(f"unknown metric(s) {unknown}; available: "
                                 f"{', '.join([*kinds, *extra])}")
        cats = [m for m in metrics if kinds.get(m) == "category"]
        if cats:
            raise AggregateError(f"metric(s) {cats} are categorical (text); group by them "
                                 "instead (--group-by)")
        chosen = {m: kinds.get(m, DERIVED_KINDS.get(m, "rate")) for m in metrics}
    else:
        chosen = {m: k for m, k in kinds.items() if k in ("number", "rate")}
    derived = {m: DERIVED[m] for m in chosen if m in DERIVED and m not in kinds}
    groups: dict[tuple[Any, ...], Group] = {}
    values: dict[tuple[Any, ...], dict[str, array[float]]] = {}
    walls: dict[tuple[Any, ...], array[float]] = {}
    for row in rows():
        f = episode_fields(row)
        met = row.metrics or {}
        key = tuple(_hashable(met.get(k[8:])) if k.startswith("metrics.") else f.get(k)
                    for k in keys)
        g = groups.setdefault(key, Group(key))
        vals = values.setdefault(key, {m: array("d") for m in chosen})
        g.episodes += 1
        if row.status != "done":
            g.failed += row.status == "failed"
            g.pending += row.status == "pending"
            continue
        g.done += 1
        if row.outcome is not None:
            g.outcomes[row.outcome] = g.outcomes.get(row.outcome, 0) + 1
        if row.wall_time is not None:
            walls.setdefault(key, array("d")).append(row.wall_time)
        for m in chosen:
            v = derived[m](row) if m in derived else met.get(m)
            if isinstance(v, (int, float)):
                vals[m].append(float(v))
        for k, v in usage_totals(row.usage).items():
            g.usage[k] = g.usage.get(k, 0.0) + v
    total_usage: dict[str, float] = {}
    for key, g in groups.items():
        g.stats = {m: summarize(values[key][m], kind) for m, kind in chosen.items()}
        g.wall_time = summarize(walls.get(key, array("d")))
        for k, v in g.usage.items():
            total_usage[k] = total_usage.get(k, 0.0) + v
    return Aggregate(keys, chosen, list(groups.values()), total_usage)


def episode_fields_template() -> dict[str, Any]:
    """The always-present fields (to resolve keys when a store has no episodes)."""
    return dict.fromkeys(("run", "domain", "scenario", "agents", "seed", "repeat", "status",
                          "outcome"))
