"""The bargaining scenario file format (YAML), parsed with errors that name the key.

::

    name: laptop-sale
    issues:
      price: [900, 1000, 1100, 1200]
      warranty: [0, 1, 2]
    parties:
      buyer:
        batna: 0.3
        discount: 0.9      # optional: utility and BATNA worth u * 0.9 ** t (default 1)
        utility:
          type: linear_additive
          weights: {price: 0.7, warranty: 0.3}
          values:
            price: {900: 1.0, 1000: 0.7, 1100: 0.3, 1200: 0.0}
            warranty: {0: 0.0, 1: 0.6, 2: 1.0}
      seller:
        batna: 0.2
        utility:
          type: table      # keys "issue=value,..." in issue order
          default: 0.0
          table: {"price=1200,warranty=0": 1.0}

Utility types: ``linear_additive`` (sum over issues of weight x value score),
``table`` (explicit utility per outcome) and ``allocation`` (``counts``,
``unit_values``, ``side`` 0 or 1; the issues are item counts given to the first party).

``discount`` (delta, 0 < delta <= 1, default 1 = none) makes a party's utility and BATNA
time-discounted as in Genius: ``u * delta ** t``, ``t = round / (max_rounds + 1)`` (see
:mod:`accord.core.discount`).

Files are read by :mod:`accord.core.safeload` (size, depth, alias, number and UTF-8
budgets); an unknown key is an error with a close-match suggestion; a space of more than
``max_outcomes`` outcomes (default 10^6) is refused before anything is allocated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord.core.loadlimits import outcome_memory_problem
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES, Issue, OutcomeSpace, OutcomeSpaceTooLarge
from accord.core.safeload import (
    Document,
    LoadError,
    check_name,
    clip,
    parse_yaml,
    read_text,
    short,
    unknown_keys,
)
from accord.core.scenario import Party, Scenario
from accord.core.utility import (
    AllocationUtility,
    LinearAdditiveUtility,
    TableUtility,
    UtilityFunction,
)
from accord.domains.bargaining import rules as game


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the file, key and problem
    (an empty ``source`` or ``key`` is left out: an unknown built-in name has neither; so
    is a placeholder key such as ``<yaml>`` or an importer's ``<file>``, kept in
    :attr:`key`)."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        source, key, problem = clip(str(source)), clip(str(key)), clip(problem, 800)
        shown = "" if key.startswith("<") and key.endswith(">") else key
        super().__init__(": ".join([p for p in (source, shown) if p] + [problem]))
        self.source, self.key, self.problem = source, key, problem


#: keys of a scenario file, of one party and of each utility type
SCENARIO_KEYS = ("name", "description", "issues", "parties", "instructions", "rules")
PARTY_KEYS = ("batna", "utility", "discount", "instructions", "persona")
UTILITY_KEYS = {"linear_additive": ("type", "weights", "values"),
                "table": ("type", "default", "table"),
                "allocation": ("type", "counts", "unit_values", "side")}


def _known_keys(src: str, key: str, data: Mapping[Any, Any], allowed: tuple[str, ...]) -> None:
    bad = unknown_keys(data, allowed)
    if bad is not None:
        raise ScenarioError(src, f"{key}.{bad[0]}" if key else bad[0], bad[1])


def _number(src: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(src, key, f"expected a number, got {short(value)}")
    if not math.isfinite(value):
        raise ScenarioError(src, key, f"expected a finite number, got {value!r}")
    try:
        return float(value)
    except OverflowError:
        raise ScenarioError(src, key, f"number out of range: {short(value)}") from None


def _mapping(src: str, key: str, value: Any) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(src, key, f"expected a mapping, got {type(value).__name__}")
    return value


def _issues(src: str, data: Any, max_outcomes: int) -> OutcomeSpace:
    raw = _mapping(src, "issues", data)
    if not raw:
        raise ScenarioError(src, "issues", "at least one issue is required")
    issues = []
    for name, values in raw.items():
        key = f"issues.{name}"
        if not isinstance(values, list) or not values:
            raise ScenarioError(src, key, "expected a non-empty list of values")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise ScenarioError(src, key, f"values must be ints or strings, got {short(v)}")
        seen: set[str] = set()
        for v in values:
            if str(v) in seen:
                raise ScenarioError(src, key, f"duplicate value {short(v)}")
            seen.add(str(v))
        issues.append(Issue(str(name), tuple(values)))
    try:
        space = OutcomeSpace(issues, max_outcomes)
        space.check_size("a scenario")
    except OutcomeSpaceTooLarge as exc:
        raise ScenarioError(src, "issues", str(exc)) from None
    except ValueError as exc:
        raise ScenarioError(src, "issues", str(exc)) from None
    return space


def _linear(src: str, key: str, spec: Mapping[Any, Any], space: OutcomeSpace) -> UtilityFunction:
    _known_keys(src, key, spec, UTILITY_KEYS["linear_additive"])
    weights = _mapping(src, f"{key}.weights", spec.get("weights"))
    values = _mapping(src, f"{key}.values", spec.get("values"))
    for issue in weights:
        if str(issue) not in space.names:
            raise ScenarioError(src, f"{key}.weights.{issue}", f"unknown issue; issues are "
                                f"{short(list(space.names))}")
    w = {str(k): _number(src, f"{key}.weights.{k}", v) for k, v in weights.items()}
    scores: dict[str, dict[Any, float]] = {}
    for issue in space.issues:
        if issue.name not in w:
            raise ScenarioError(src, f"{key}.weights.{issue.name}", "missing weight for issue")
        table = _mapping(src, f"{key}.values.{issue.name}", values.get(issue.name))
        by_str = {str(k): (k, v) for k, v in table.items()}
        names = {str(v) for v in issue.values}  # once per issue: 10,000 values stay linear
        unknown = [k for k in by_str if k not in names]
        if unknown:
            raise ScenarioError(src, f"{key}.values.{issue.name}.{unknown[0]}",
                                f"not a value of issue {short(issue.name)} "
                                f"{short(list(issue.values))}")
        scores[issue.name] = {}
        for v in issue.values:
            if str(v) not in by_str:
                raise ScenarioError(src, f"{key}.values.{issue.name}.{v}",
                                    "missing score for this value")
            scores[issue.name][v] = _number(src, f"{key}.values.{issue.name}.{v}",
                                            by_str[str(v)][1])
    extra = [k for k in values if str(k) not in space.names]
    if extra:
        raise ScenarioError(src, f"{key}.values.{extra[0]}", "unknown issue")
    return LinearAdditiveUtility(w, scores)


def _table(src: str, key: str, spec: Mapping[Any, Any], space: OutcomeSpace) -> UtilityFunction:
    _known_keys(src, key, spec, UTILITY_KEYS["table"])
    default = _number(src, f"{key}.default", spec.get("default", 0.0))
    raw = _mapping(src, f"{key}.table", spec.get("table", {}))
    table: dict[int, float] = {}
    for k, v in raw.items():
        ek = f"{key}.table.{k}"
        parts = [p.strip() for p in str(k).split(",")]
        pkg: dict[str, str] = {}
        for part in parts:
            name, eq, val = part.partition("=")
            if not eq:
                raise ScenarioError(src, ek, f"entry {short(part)} must look like issue=value")
            pkg[name.strip()] = val.strip()
        if list(pkg) != list(space.names):
            raise ScenarioError(src, ek, "keys must give every issue in order "
                                f"{short(list(space.names))}")
        try:
            table[space.index_of(pkg)] = _number(src, ek, v)
        except KeyError as exc:
            raise ScenarioError(src, ek, str(exc.args[0])) from None
    return TableUtility(space, table, default)


def _allocation(src: str, key: str, spec: Mapping[Any, Any], space: OutcomeSpace
                ) -> UtilityFunction:
    _known_keys(src, key, spec, UTILITY_KEYS["allocation"])
    counts = _mapping(src, f"{key}.counts", spec.get("counts"))
    vals = _mapping(src, f"{key}.unit_values", spec.get("unit_values"))
    side = spec.get("side", 0)
    if side not in (0, 1):
        raise ScenarioError(src, f"{key}.side", "must be 0 or 1")
    if sorted(map(str, counts)) != sorted(space.names):
        raise ScenarioError(src, f"{key}.counts", f"must give a count for exactly the issues "
                            f"{short(list(space.names))}, got {short(list(counts))}")
    for item, count in counts.items():
        ck = f"{key}.counts.{item}"
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ScenarioError(src, ck, f"expected a non-negative integer, got {short(count)}")
        for v in space.issue(str(item)).values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= count:
                raise ScenarioError(src, f"issues.{item}", f"an allocation issue's values must "
                                    f"be integers from 0 to its count {count}; got {short(v)}")
    try:
        return AllocationUtility({str(k): int(v) for k, v in counts.items()},
                                 {str(k): _number(src, f"{key}.unit_values.{k}", v)
                                  for k, v in vals.items()}, side)
    except ValueError as exc:
        raise ScenarioError(src, key, str(exc)) from None


_UTILITY_TYPES = {"linear_additive": _linear, "table": _table, "allocation": _allocation}


def parse_scenario(data: Any, source: str = "<scenario>",
                   max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> Scenario:
    """Build a :class:`Scenario` from the parsed YAML mapping.

    ``max_outcomes`` caps the outcome space (raise it for deliberately large scenarios).
    """
    root = _mapping(source, "<root>", data)
    _known_keys(source, "", root, SCENARIO_KEYS)
    name = root.get("name")
    if not isinstance(name, str) or not name:
        raise ScenarioError(source, "name", "a non-empty string is required")
    long_name = check_name(name, "scenario")
    if long_name:
        raise ScenarioError(source, "name", long_name)
    space = _issues(source, root.get("issues"), max_outcomes)
    parties_raw = _mapping(source, "parties", root.get("parties"))
    if len(parties_raw) < 2:
        raise ScenarioError(source, "parties", "at least two parties are required")
    # the outcome cap can be raised by hand; the memory the arrays would take cannot
    too_big = outcome_memory_problem(space.size, len(space.issues), len(parties_raw))
    if too_big is not None:
        raise ScenarioError(source, "issues", too_big)
    parties = []
    for pname, pspec in parties_raw.items():
        key = f"parties.{pname}"
        pspec = _mapping(source, key, pspec)
        _known_keys(source, key, pspec, PARTY_KEYS)
        if "batna" not in pspec:
            raise ScenarioError(source, f"{key}.batna", "every party must declare a BATNA")
        batna = _number(source, f"{key}.batna", pspec["batna"])
        discount = 1.0
        if "discount" in pspec:
            discount = _number(source, f"{key}.discount", pspec["discount"])
            if not 0.0 < discount <= 1.0:
                raise ScenarioError(source, f"{key}.discount", f"a discount factor must be "
                                    f"in (0, 1] (1 = no discount), got {discount:g}")
        uspec = _mapping(source, f"{key}.utility", pspec.get("utility"))
        utype = uspec.get("type", "linear_additive")
        builder = _UTILITY_TYPES.get(utype) if isinstance(utype, str) else None
        if builder is None:
            raise ScenarioError(source, f"{key}.utility.type",
                                f"unknown type {short(utype)}; use one of "
                                f"{sorted(_UTILITY_TYPES)}")
        try:
            pbrief = game.brief(key, pspec, [str(n) for n in parties_raw])
        except game.RuleError as exc:
            raise ScenarioError(source, exc.key, exc.problem) from None
        parties.append(Party(str(pname), builder(source, f"{key}.utility", uspec, space), batna,
                             discount, pbrief))
    desc = root.get("description", "")
    try:
        instructions = game.text("instructions", root.get("instructions"))
        rules = game.rules(root.get("rules"), [p.name for p in parties], space)
    except game.RuleError as exc:
        raise ScenarioError(source, exc.key, exc.problem) from None
    try:
        return Scenario(name, space, tuple(parties), str(desc or ""), source, instructions,
                        rules)
    except ValueError as exc:
        raise ScenarioError(source, "parties", str(exc)) from None


def _load_error(exc: LoadError) -> ScenarioError:
    # a file that cannot be read has no key: "x.yaml: cannot read: ...", not "<file>"
    key = "" if exc.stage == "read" and not exc.key else exc.key_text("<yaml>")
    return ScenarioError(exc.source, key,
                         exc.problem + (f" (line {exc.line})" if exc.line else ""))


def read_scenario_text(path: str | Path) -> str:
    """The text of a scenario file, read within :mod:`accord.core.safeload`'s budgets
    (regular file, size cap, UTF-8); :class:`ScenarioError` when it cannot be read."""
    try:
        return read_text(path)
    except LoadError as exc:
        raise _load_error(exc) from None


def parse_text(text: str, source: str, max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> Scenario:
    """Parse the YAML text of a scenario file named ``source`` (safe YAML: alias, depth and
    number budgets)."""
    try:
        doc = parse_yaml(text, source)
    except LoadError as exc:
        raise _load_error(exc) from None
    try:
        return parse_scenario(doc.data, source, max_outcomes)
    except ScenarioError as exc:
        line = _key_line(doc, exc.key)
        if line is None:
            raise
        raise ScenarioError(exc.source, exc.key, f"{exc.problem} (line {line})") from None


def _key_line(doc: Document, key: str) -> int | None:
    """The line of the dotted ``key`` an error names, or of its nearest enclosing key
    found in the file (names may hold dots: paths are matched as joined text)."""
    best: tuple[int, int] | None = None  # (length of the matched path text, line)
    for path, line in doc.lines.items():
        joined = ".".join(str(p) for p in path)
        if path and (joined == key or key.startswith(joined + ".")) and (
                best is None or len(joined) > best[0]):
            best = (len(joined), line)
    return None if best is None else best[1]


def load_scenario(path: str | Path, max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> Scenario:
    """Read and parse a scenario YAML file (through :mod:`accord.core.safeload`)."""
    return parse_text(read_scenario_text(path), str(path), max_outcomes)
