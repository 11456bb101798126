"""The experiment spec (YAML): what to run, parsed with errors that name file, line and key.

Minimal form (issue 3)::

    name: demo
    domain: bargaining
    scenarios: [buyer-seller, procurement]
    agents:
      - [boulware, conceder]
      - [linear, linear]
    seeds: 5

Richer forms (all optional):

* ``agents``: a list of line-ups; a line-up is a list of agent specs (strings such as
  ``"llm:openai/gpt-4.1-mini?temperature=0.2"`` or mappings ``{kind: boulware, e: 0.1,
  name: soft}``; ``name`` is a display label, not an option), a comma string
  ``"boulware,conceder"``, or a mapping ``{name: hard-vs-soft, agents: [...]}``. The
  mapping ``{product: [[boulware, linear], [conceder, hardliner]]}`` crosses per-position
  choices (a tournament).
* ``params``: a mapping from parameter to a list of alternatives (a scalar is one fixed
  value; wrap a list-valued parameter: ``turn_order: [[seller, buyer]]``), expanded as a
  cartesian product; or a list of such mappings, whose products are concatenated.
* ``seeds``: ``N`` (seeds ``0..N-1``), a list of seeds, or ``{start: S, count: N}``.
* ``prompts``: prompt variants as an axis (issue 29): ``{constraints: [both, start, end],
  order: [offers-first, messages-first]}`` runs every line-up with an LLM negotiator once
  per combination, the options set on its LLM agents (seed 002's position and order
  effects).
* ``fork``: ``{from: STORE, at: [3, 5], run: NAME}`` forks every finished episode of the
  sweep's domain in STORE at each round (issue 29; see ``accord fork``), once per line-up
  and parameter set of the sweep; ``scenarios`` and ``seeds`` are the parents' own.
* ``repeat``: run every (cell, seed) this many times; the repetition index is part of the
  episode id and reaches the domain as ``RunContext.extra["repeat"]`` (LLM caches are
  scoped by episode id, so repetitions of a stochastic LLM agent are distinct).
* ``lineups``: named alternatives to ``agents`` (a mapping from a name to line-ups in the
  syntax of ``agents``), e.g. the seeds' published models; ``accord bench SPEC --lineup
  NAME`` runs ``lineups.NAME`` instead of ``agents`` (in every sweep, each of which may
  have its own) under the run name ``<name>-<NAME>``. Every alternative's agent specs are
  parsed when the file is read, selected or not; the domain checks the selected one.
* ``scenarios: all`` runs every built-in scenario of the domain.
* ``sweeps``: a list of sweeps, each with the keys above; top-level sweep keys are
  defaults for every sweep (so several domains, each with its own scenarios and agents).
* ``plugins``: modules imported before anything runs (in every worker too), so users'
  own domains register themselves.
* run settings: ``store``, ``concurrency``, ``executor``, ``timeout`` (seconds per
  episode), ``llm`` (``{cache: PATH, cache_mode: rw}``, passed to ``RunContext.llm``),
  ``data`` (data directory), ``description``. Command-line flags override them.
* ``require_approval: true``: every agreement is stored ``pending`` a person's approval
  (seed 002, V1 Human-in-the-Loop; see :mod:`accord.bench.approvals`).

Budgets (issue 12): the file is read by :mod:`accord.core.safeload`; every key is known
or an error with a close-match suggestion; a run plans at most :data:`MAX_EPISODES`
episodes (``accord bench --max-episodes N`` raises it), checked from the counts before
any list of seeds, parameter sets or line-ups is built.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.bench.lineups import Lineup, parse_agents
from accord.bench.yamlpos import ConfigError, join_key, read_yaml
from accord.core.safeload import MAX_NAME, short

#: keys of one sweep (allowed at the top level as defaults, and in each ``sweeps`` item)
SWEEP_KEYS = ("domain", "scenarios", "scenario", "agents", "lineups", "params", "seeds",
              "repeat", "prompts", "fork")
#: keys of a sweep's ``fork`` block
FORK_KEYS = ("from", "at", "run")
#: keys only allowed at the top level
TOP_KEYS = ("name", "description", "plugins", "sweeps", "store", "concurrency", "executor",
            "timeout", "llm", "data", "require_approval")
#: keys of the ``llm`` block (what :func:`accord.agents.llm_support.runtime_for` reads)
LLM_KEYS = ("cache", "cache_mode", "timeout", "concurrency", "options")
#: episodes one run may plan unless ``--max-episodes`` raises it
MAX_EPISODES = 1_000_000
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")


class Where:
    """Error factory for one config source: turns a key path into a located ConfigError."""

    def __init__(self, source: str, lines: Mapping[str, int] | None = None,
                 max_episodes: int = MAX_EPISODES) -> None:
        self.source = source
        self.lines = dict(lines or {})
        self.max_episodes = max_episodes

    def line(self, key: str) -> int | None:
        """The line of ``key`` or of its nearest enclosing key."""
        k = key
        while k:
            if k in self.lines:
                return self.lines[k]
            cut = max(k.rfind("."), k.rfind("["))
            k = k[:cut] if cut > 0 else ""
        return None

    def error(self, key: str, problem: str) -> ConfigError:
        """A ConfigError for ``key``."""
        return ConfigError(self.source, key, problem, self.line(key))

    def too_many(self, key: str, count: int, parts: str) -> ConfigError:
        """The error for a plan of ``count`` episodes (``parts`` says how) over the cap."""
        return self.error(key, f"{count:,} episodes ({parts}) is more than the cap of "
                          f"{self.max_episodes:,} per run; raise it with --max-episodes N "
                          "or split the run")


@dataclass(frozen=True)
class Sweep:
    """One sweep: a domain, its scenarios, line-ups, parameter sets, seeds and repeats."""

    domain: str
    scenarios: tuple[str, ...]
    lineups: tuple[Lineup, ...]
    params: tuple[dict[str, Any], ...]
    seeds: tuple[int, ...]
    repeat: int
    key: str  # where it came from, for error messages (``<root>`` or ``sweeps[2]``)
    scenario_key: str = "scenarios"
    domain_key: str = "domain"
    #: fork stored episodes instead of starting fresh ones (``fork:``)
    fork: ForkSource | None = None


@dataclass(frozen=True)
class ForkSource:
    """A sweep's ``fork`` block: fork every finished episode of the sweep's domain in the
    store ``source`` (one run of it with ``run``) at each round of ``at``, with each of
    the sweep's line-ups and parameter sets (issue 29)."""

    source: str
    at: tuple[int, ...]
    run: str | None = None
    key: str = "fork"


@dataclass(frozen=True)
class ExperimentConfig:
    """A parsed experiment spec; ``raw`` is the config as written (for the store)."""

    name: str
    source: str
    sweeps: tuple[Sweep, ...]
    plugins: tuple[str, ...] = ()
    description: str = ""
    store: str | None = None
    concurrency: int | None = None
    executor: str | None = None
    timeout: float | None = None
    llm: dict[str, Any] = field(default_factory=dict)
    data: str | None = None
    require_approval: bool = False
    raw: dict[str, Any] = field(default_factory=dict)
    where: Where = field(default_factory=lambda: Where("<config>"))


def _check_keys(w: Where, data: Mapping[str, Any], path: str, allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise w.error(join_key(path, str(key)),
                          f"unknown key{extra}; known keys: {', '.join(allowed)}")


def _int(w: Where, key: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise w.error(key, f"expected an integer, got {short(value)}")
    if value < minimum:
        raise w.error(key, f"must be at least {minimum}, got {value}")
    return value


def _seeds(w: Where, key: str, value: Any) -> tuple[int, ...]:
    if value is None:
        return (0,)
    if isinstance(value, Mapping):
        _check_keys(w, value, key, ("start", "count"))
        start = _int(w, join_key(key, "start"), value.get("start", 0), 0)
        if "count" not in value:
            raise w.error(join_key(key, "count"), "required (how many seeds)")
        count = _int(w, join_key(key, "count"), value["count"], 1)
        if count > w.max_episodes:
            raise w.too_many(join_key(key, "count"), count, f"{count:,} seeds")
        return tuple(range(start, start + count))
    if isinstance(value, list):
        if not value:
            raise w.error(key, "empty list gives no episodes")
        seeds = tuple(_int(w, join_key(key, i), s, 0) for i, s in enumerate(value))
        if len(set(seeds)) != len(seeds):
            dup = next(s for s in seeds if seeds.count(s) > 1)
            raise w.error(key, f"seed {dup} is listed twice")
        return seeds
    if isinstance(value, bool) or not isinstance(value, int):
        raise w.error(key, f"expected a count, a list of seeds or {{start, count}}, "
                      f"got {short(value)}")
    count = _int(w, key, value, 1)
    if count > w.max_episodes:  # checked before range() is materialised
        raise w.too_many(key, count, f"{count:,} seeds")
    return tuple(range(count))


def _param_product(w: Where, key: str, value: Any) -> list[dict[str, Any]]:
    if value is None:
        return [{}]
    if not isinstance(value, Mapping):
        raise w.error(key, "expected a mapping from parameter to a list of values")
    combos: list[dict[str, Any]] = [{}]
    sizes = [len(a) if isinstance(a, list) else 1 for a in value.values()]
    if math.prod(sizes) > w.max_episodes:  # checked before the product is built
        raise w.too_many(key, math.prod(sizes), " x ".join(map(str, sizes))
                         + " parameter values")
    for name, alts in value.items():
        if not isinstance(name, str) or not name:
            raise w.error(key, f"parameter names must be strings, got {short(name)}")
        choices = alts if isinstance(alts, list) else [alts]
        if not choices:
            raise w.error(join_key(key, name), "empty list gives no episodes (wrap a "
                          "list-valued parameter: [[a, b]])")
        combos = [{**c, name: v} for c in combos for v in choices]
    return combos


def _params(w: Where, key: str, value: Any) -> tuple[dict[str, Any], ...]:
    if isinstance(value, list):
        if not value:
            raise w.error(key, "empty list gives no episodes")
        out: list[dict[str, Any]] = []
        for i, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise w.error(join_key(key, i), "each parameter set must be a mapping")
            out.extend(_param_product(w, join_key(key, i), item))
            if len(out) > w.max_episodes:
                raise w.too_many(key, len(out), f"{len(out):,} parameter sets so far")
        return tuple(out)
    return tuple(_param_product(w, key, value))


def _scenarios(w: Where, sources: Mapping[str, str], data: Mapping[str, Any]) -> tuple[
        tuple[str, ...], str]:
    if "scenario" in data and "scenarios" in data:
        raise w.error(sources["scenario"], "give either 'scenario' or 'scenarios', not both")
    key = sources.get("scenarios") or sources.get("scenario")
    if key is None:
        raise w.error(sources.get("<sweep>", "scenarios"), "missing key 'scenarios' "
                      "(a list of scenario names, or 'all')")
    value = data.get("scenarios", data.get("scenario"))
    items = value if isinstance(value, list) else [value]
    if not items:
        raise w.error(key, "empty list gives no episodes")
    for i, s in enumerate(items):
        if not isinstance(s, str) or not s:
            raise w.error(join_key(key, i) if isinstance(value, list) else key,
                          f"expected a scenario name, got {short(s)}")
    if len(set(items)) != len(items):
        raise w.error(key, "a scenario is listed twice")
    return tuple(items), key


def _alternatives(w: Where, key: str, value: Any) -> dict[str, tuple[Lineup, ...]]:
    """The named line-ups of a ``lineups`` mapping, each parsed like ``agents``."""
    if not isinstance(value, Mapping) or not value:
        raise w.error(key, "expected a mapping from a line-up name to line-ups, e.g. "
                      "{seed001: [[\"llm:openai/gpt-4.1-mini\", \"llm:openai/gpt-4.1-mini\"]]}")
    out: dict[str, tuple[Lineup, ...]] = {}
    for name, agents in value.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise w.error(key, f"a line-up name must be letters, digits, '.', '_' or '-', "
                          f"got {short(name)}")
        out[name] = parse_agents(w, join_key(key, name), agents)
    return out


def _sweep(w: Where, defaults: Mapping[str, Any], item: Mapping[str, Any], path: str,
           lineup: str | None = None) -> Sweep:
    data = {**defaults, **item}
    src = {k: (join_key(path, k) if k in item else k) for k in data}
    src["<sweep>"] = path or "<root>"
    if "domain" not in data:
        raise w.error(path or "<root>", "missing key 'domain' (e.g. domain: bargaining)")
    domain = data["domain"]
    if not isinstance(domain, str) or not domain:
        raise w.error(src["domain"], f"expected a domain name, got {short(domain)}")
    fork = _fork(w, src.get("fork", "fork"), data.get("fork"))
    if fork is not None and "scenarios" not in data and "scenario" not in data:
        data = {**data, "scenarios": ["(the parents')"]}  # a fork's scenario is its parent's
        src["scenarios"] = src.get("fork", "fork")
    scenarios, skey = _scenarios(w, src, data)
    named = _alternatives(w, src["lineups"], data["lineups"]) if "lineups" in data else {}
    if lineup is not None:
        if lineup not in named:
            known = ", ".join(named) if named else "none"
            raise w.error(src.get("lineups", path or "<root>"),
                          f"no line-up named {lineup!r} here (--lineup); named line-ups: "
                          f"{known}")
        lineups = named[lineup]
    elif "agents" not in data:
        raise w.error(path or "<root>", "missing key 'agents' (a list of line-ups, "
                      "e.g. [[boulware, conceder]])")
    else:
        lineups = parse_agents(w, src["agents"], data["agents"])
    if data.get("prompts") is not None:
        lineups = prompt_variants(w, src.get("prompts", "prompts"), data["prompts"], lineups)
    params = _params(w, src.get("params", "params"), data.get("params"))
    seeds = _seeds(w, src.get("seeds", "seeds"), data.get("seeds"))
    repeat = _int(w, src.get("repeat", "repeat"), data.get("repeat", 1), 1)
    sizes = (len(scenarios), len(lineups), len(params), len(seeds), repeat)
    if math.prod(sizes) > w.max_episodes:
        raise w.too_many(path or "<root>", math.prod(sizes), episode_parts(*sizes))
    return Sweep(domain, scenarios, lineups, params, seeds, repeat, path or "<root>", skey,
                 src["domain"], fork)


def _fork(w: Where, key: str, raw: Any) -> ForkSource | None:
    """The ``fork`` block: ``{from: STORE, at: [3, 5], run: NAME}``."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise w.error(key, "expected {from: STORE, at: [ROUND, ...]} (and optionally run)")
    _check_keys(w, raw, key, FORK_KEYS)
    source = raw.get("from")
    if not isinstance(source, str) or not source:
        raise w.error(join_key(key, "from"), "expected the path of a results store")
    at = raw.get("at")
    rounds = at if isinstance(at, list) else [at]
    if not rounds or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 1
                             for r in rounds):
        raise w.error(join_key(key, "at"), "expected a round (1, 2, ...) or a list of rounds")
    run = raw.get("run")
    if run is not None and not isinstance(run, str):
        raise w.error(join_key(key, "run"), "expected a run name")
    return ForkSource(source, tuple(r for r in rounds if isinstance(r, int)), run, key)


#: agent kinds a ``prompts:`` axis applies to (the LLM negotiators)
PROMPTED_KINDS = ("llm",)


def prompt_variants(w: Where, key: str, raw: Any, lineups: tuple[Lineup, ...]
                    ) -> tuple[Lineup, ...]:
    """The ``prompts`` axis (issue 29): ``{option: [values]}`` crossed over every line-up,
    each combination set on the line-up's LLM agents (e.g. ``constraints: [both, start,
    end]``, ``order: [offers-first, messages-first]``); a line-up without an LLM agent is
    kept once. An option already in an agent's spec is overridden by the axis."""
    import itertools

    from accord.agents.spec import AgentSpec

    if not isinstance(raw, Mapping) or not raw:
        raise w.error(key, "expected a mapping from a prompt option to its variants, e.g. "
                      "{constraints: [both, start, end]}")
    axes: list[tuple[str, list[Any]]] = []
    for opt, values in raw.items():
        vals = values if isinstance(values, list) else [values]
        if not isinstance(opt, str) or not vals or not all(
                isinstance(v, (str, int, float, bool)) for v in vals):
            raise w.error(join_key(key, str(opt)), "expected a list of option values, e.g. "
                          "[both, start, end]")
        axes.append((opt, vals))
    out: list[Lineup] = []
    for lu in lineups:
        if not any(a.kind in PROMPTED_KINDS for a in lu.agents):
            out.append(lu)
            continue
        for combo in itertools.product(*(vals for _, vals in axes)):
            chosen = dict(zip((o for o, _ in axes), combo, strict=True))
            agents = tuple(AgentSpec(a.kind, a.arg, {**a.options, **chosen})
                           if a.kind in PROMPTED_KINDS else a for a in lu.agents)
            tag = ",".join(f"{k}={v}" for k, v in chosen.items())
            labels = tuple(f"{label} [{tag}]" if label and a.kind in PROMPTED_KINDS else label
                           for label, a in zip(lu.labels, lu.agents, strict=False))
            out.append(Lineup(agents, f"{lu.name} [{tag}]" if lu.name else None, labels))
    return tuple(out)


def episode_parts(scenarios: int, lineups: int, params: int, seeds: int, repeat: int) -> str:
    """``2 scenarios x 3 line-ups x ...``: how a count of episodes comes about."""
    return (f"{scenarios} scenarios x {lineups} line-ups x {params} parameter sets x "
            f"{seeds:,} seeds x {repeat:,} repeats")


def _str_or_none(w: Where, data: Mapping[str, Any], key: str) -> str | None:
    val = data.get(key)
    if val is None:
        return None
    if not isinstance(val, str) or not val:
        raise w.error(key, f"expected a non-empty string, got {short(val)}")
    return val


def parse_config(data: Any, source: str = "<config>", lines: Mapping[str, int] | None = None,
                 default_name: str | None = None, max_episodes: int | None = None,
                 lineup: str | None = None) -> ExperimentConfig:
    """Build an :class:`ExperimentConfig` from parsed YAML (no imports, no I/O).

    ``max_episodes`` caps the planned episodes (default :data:`MAX_EPISODES`); ``lineup``
    runs the named alternative ``lineups.<lineup>`` instead of ``agents`` (in every sweep)
    under the run name ``<name>-<lineup>``.
    """
    w = Where(source, lines, MAX_EPISODES if max_episodes is None else max_episodes)
    if not isinstance(data, Mapping):
        raise w.error("<root>", "a bench config must be a mapping (name, domain, scenarios, "
                      "agents, seeds ...)")
    _check_keys(w, data, "", TOP_KEYS + SWEEP_KEYS)
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME:
        raise w.error("name", f"expected a run name of at most {MAX_NAME} letters, digits, "
                      f"'.', '_' or '-', got {short(name)}")
    defaults = {k: v for k, v in data.items() if k in SWEEP_KEYS}
    if "sweeps" in data:
        items = data["sweeps"]
        if not isinstance(items, list) or not items:
            raise w.error("sweeps", "expected a non-empty list of sweeps")
        sweeps = []
        total = 0
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise w.error(f"sweeps[{i}]", "each sweep must be a mapping")
            _check_keys(w, item, f"sweeps[{i}]", SWEEP_KEYS)
            sweeps.append(_sweep(w, defaults, item, f"sweeps[{i}]", lineup))
            total += episode_count(sweeps[-1])
            if total > w.max_episodes:
                raise w.too_many("sweeps", total, f"{i + 1} sweeps")
    else:
        sweeps = [_sweep(w, {}, defaults, "", lineup)]
    if lineup is not None:
        name = f"{name}-{lineup}"
        if len(name) > MAX_NAME:
            raise w.error("name", f"the run name {name!r} (with --lineup) is longer than "
                          f"{MAX_NAME} characters")
    plugins = data.get("plugins") or []
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p for p in plugins):
        raise w.error("plugins", "expected a list of module names (e.g. [mypackage.domain])")
    llm = data.get("llm") or {}
    if not isinstance(llm, Mapping):
        raise w.error("llm", "expected a mapping such as {cache: PATH, cache_mode: rw}")
    _check_keys(w, llm, "llm", LLM_KEYS)
    if llm.get("options") is not None:
        from accord.agents.llm_base import check_run_options

        if not isinstance(llm["options"], Mapping):
            raise w.error("llm.options", "expected a mapping of generation settings such as "
                          "{thinking: off, reasoning_effort: low}")
        try:
            check_run_options(llm["options"])
        except ValueError as exc:
            raise w.error("llm.options", str(exc)) from None
    conc = data.get("concurrency")
    timeout = data.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout <= 0):
        raise w.error("timeout", f"expected a positive number of seconds, got {short(timeout)}")
    executor = _str_or_none(w, data, "executor")
    if executor is not None:
        from accord.bench.executors import parse_executor

        try:
            parse_executor(executor)
        except ValueError as exc:
            raise w.error("executor", str(exc)) from None
    desc = data.get("description") or ""
    gate = data.get("require_approval", False)
    if not isinstance(gate, bool):
        raise w.error("require_approval", f"expected true or false, got {short(gate)}")
    return ExperimentConfig(
        name=name, source=source, sweeps=tuple(sweeps), plugins=tuple(plugins),
        description=str(desc), store=_str_or_none(w, data, "store"),
        concurrency=None if conc is None else _int(w, "concurrency", conc, 1),
        executor=executor, timeout=None if timeout is None else float(timeout),
        llm=dict(llm), data=_str_or_none(w, data, "data"), require_approval=gate,
        raw=dict(data), where=w)


def episode_count(sweep: Sweep) -> int:
    """Episodes a sweep plans (``scenarios: all`` counted as one scenario)."""
    return (len(sweep.scenarios) * len(sweep.lineups) * len(sweep.params) * len(sweep.seeds)
            * sweep.repeat)


def load_config(path: str | Path, max_episodes: int | None = None,
                lineup: str | None = None) -> ExperimentConfig:
    """Read, parse and check a bench config file (the run name defaults to the file stem;
    ``lineup``: run the named alternative ``lineups.<lineup>``, see :func:`parse_config`)."""
    data, lines = read_yaml(path)
    return parse_config(data, str(path), lines, default_name=Path(path).stem,
                        max_episodes=max_episodes, lineup=lineup)
