"""GeniusWeb JSON (ANAC 2020-2022, ANL): one ``LinearAdditiveUtilitySpace`` profile per
party, each carrying its domain.

::

    {"LinearAdditiveUtilitySpace": {
       "name": "party1",
       "domain": {"name": "jobs", "issuesValues": {
           "salary": {"values": ["2000", "3000"]},
           "days": {"range": {"low": 1, "high": 5, "step": 1}}}},
       "issueWeights": {"salary": 0.6, "days": 0.4},
       "issueUtilities": {
           "salary": {"discreteutils": {"valueUtilities": {"2000": 0.2, "3000": 1.0}}},
           "days": {"numberutils": {"lowValue": 1, "lowUtility": 0.0,
                                    "highValue": 5, "highUtility": 1.0}}},
       "reservationBid": {"issuevalues": {"salary": "2000", "days": 1}}}}

The value-set utilities may also be spelled ``DiscreteValueSetUtilities`` and
``NumberValueSetUtilities`` (newer GeniusWeb releases). Value utilities are used as
given (GeniusWeb does not rescale them); weights are scaled to sum 1. A ``numberutils``
utility is linear between its low and high points and 0 outside them, as GeniusWeb
defines it. The BATNA is the utility of the reservation bid,
0 without one. A separate domain file (a JSON object with ``issuesValues``) may sit in the
folder; the profiles' domains must then equal it.
"""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import Any

from accord.formats.base import (
    FormatError,
    Imported,
    input_files,
    normalised_weights,
    party_name,
    read_json,
    tidy,
)

ROOT = "LinearAdditiveUtilitySpace"
#: the two spellings of a value-set utility: GeniusWeb's short type names, and the class
#: names newer GeniusWeb releases (and the ANL domains) write
DISCRETE_KEYS = ("discreteutils", "DiscreteValueSetUtilities")
NUMBER_KEYS = ("numberutils", "NumberValueSetUtilities")
#: a number range is expanded to at most this many values
MAX_RANGE_VALUES = 10_000
#: the keys of the analysis file the ANL domains carry next to their profiles
#: (``domains/domainNN/specials.json``: size, opposition, nash, kalai, pareto_front)
ANL_ANALYSIS_KEYS = frozenset({"nash", "kalai", "pareto_front"})


def is_anl_analysis(doc: Any) -> bool:
    """Whether a JSON document is an ANL domain's precomputed analysis, not a profile."""
    return (isinstance(doc, dict) and ROOT not in doc and "issuesValues" not in doc
            and set(doc) >= ANL_ANALYSIS_KEYS)


def _load(path: Path) -> Any:
    return read_json(path)


def _obj(path: Path, element: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(str(path), element, f"expected an object, got "
                          f"{type(value).__name__}")
    return value


def _num(path: Path, element: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value):
        raise FormatError(str(path), element, f"expected a number, got {str(value)[:40]!r}")
    return float(value)


def _value(v: Any) -> Any:
    """A GeniusWeb value as an accord issue value (ints stay ints, the rest text)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v if isinstance(v, (int, str)) else str(v)


def _uniform(values: list[Any]) -> list[Any]:
    """An issue's values all ints, or all text when any is not an int (accord compares
    values by their text, so one issue never mixes 1 and "0.5")."""
    if all(isinstance(v, int) for v in values):
        return values
    return [str(v) for v in values]


def _number_text(d: Decimal) -> Any:
    """A range value: an int when whole, else its shortest decimal text."""
    if d == d.to_integral_value():
        return int(d)
    return format(d.normalize(), "f")


def match_value(v: Any, values: list[Any]) -> Any | None:
    """The issue value ``v`` names: by text, else by number (``1`` names ``"1.0"``)."""
    for x in values:
        if str(x) == str(_value(v)):
            return x
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    for x in values:
        try:
            if float(x) == f:
                return x
        except (TypeError, ValueError):
            continue
    return None


def read_issues(path: Path, domain: dict[str, Any]) -> dict[str, list[Any]]:
    """Issue name -> values of a GeniusWeb domain object."""
    raw = _obj(path, "domain.issuesValues", domain.get("issuesValues"))
    if not raw:
        raise FormatError(str(path), "domain.issuesValues", "no issues")
    issues: dict[str, list[Any]] = {}
    for name, spec in raw.items():
        where = f"domain.issuesValues.{name}"
        spec = _obj(path, where, spec)
        if "values" in spec:
            vals = spec["values"]
            if not isinstance(vals, list) or not vals:
                raise FormatError(str(path), f"{where}.values", "expected a non-empty list")
            values = _uniform([_value(v) for v in vals])
            if len({str(v) for v in values}) != len(values):
                raise FormatError(str(path), f"{where}.values", "duplicate value")
        elif "range" in spec:
            rng = _obj(path, f"{where}.range", spec["range"])
            low, high, step = (Decimal(str(_num(path, f"{where}.range.{k}", rng.get(k))))
                               for k in ("low", "high", "step"))
            if step <= 0 or high < low:
                raise FormatError(str(path), f"{where}.range", "needs low <= high and a "
                                  "positive step")
            count = int((high - low) / step) + 1
            if count > MAX_RANGE_VALUES:
                raise FormatError(str(path), f"{where}.range", f"{count} values; at most "
                                  f"{MAX_RANGE_VALUES} are expanded")
            values = _uniform([_number_text(low + i * step) for i in range(count)])
        else:
            raise FormatError(str(path), where, "expected \"values\" or \"range\"")
        issues[str(name)] = values
    return issues


def _numeric(path: Path, where: str, v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        raise FormatError(str(path), where, f"value {v!r} is not a number") from None


def _issue_utilities(path: Path, name: str, spec: Any, values: list[Any]) -> dict[Any, float]:
    where = f"issueUtilities.{name}"
    spec = _obj(path, where, spec)
    discrete = next((k for k in DISCRETE_KEYS if k in spec), None)
    number = next((k for k in NUMBER_KEYS if k in spec), None)
    if discrete is not None:
        d = _obj(path, f"{where}.{discrete}", spec[discrete])
        vu = _obj(path, f"{where}.{discrete}.valueUtilities", d.get("valueUtilities"))
        out: dict[Any, float] = {}
        for key, u in vu.items():
            value = match_value(key, values)
            if value is None:
                raise FormatError(str(path), f"{where}.{discrete}.valueUtilities.{key}",
                                  f"unknown value; the issue's values are "
                                  f"{[str(v) for v in values][:10]}")
            out[value] = _num(path, f"{where}.{discrete}.valueUtilities.{key}", u)
        # a value GeniusWeb finds no utility for has utility 0
        return {v: out.get(v, 0.0) for v in values}
    if number is not None:
        n = _obj(path, f"{where}.{number}", spec[number])
        lv, lu, hv, hu = (_num(path, f"{where}.{number}.{k}", n.get(k))
                          for k in ("lowValue", "lowUtility", "highValue", "highUtility"))
        result: dict[Any, float] = {}
        for v in values:
            x = _numeric(path, f"{where}.{number}", v)
            if x < lv or x > hv:
                result[v] = 0.0
            else:
                result[v] = lu if hv == lv else tidy(lu + (hu - lu) * (x - lv) / (hv - lv))
        return result
    raise FormatError(str(path), where, "expected \"discreteutils\" "
                      "(\"DiscreteValueSetUtilities\") or \"numberutils\" "
                      "(\"NumberValueSetUtilities\")")


def read_profile(path: Path, doc: Any) -> tuple[dict[str, list[Any]], dict[str, Any], float,
                                                 dict[str, Any]]:
    """(issues, utility spec, BATNA, domain object) of one profile document."""
    root = _obj(path, "<root>", doc)
    if ROOT not in root:
        raise FormatError(str(path), "<root>", f"wrong root: expected {{\"{ROOT}\": ...}}, "
                          f"got keys {list(root)[:5]} (only linear additive profiles are "
                          "supported)")
    space = _obj(path, ROOT, root[ROOT])
    domain = _obj(path, "domain", space.get("domain"))
    issues = read_issues(path, domain)
    utils = _obj(path, "issueUtilities", space.get("issueUtilities"))
    wraw = _obj(path, "issueWeights", space.get("issueWeights"))
    for name in list(utils) + list(wraw):
        if name not in issues:
            raise FormatError(str(path), f"issueUtilities.{name}" if name in utils
                              else f"issueWeights.{name}", "unknown issue")
    scores: dict[str, dict[Any, float]] = {}
    weights: dict[str, float] = {}
    for name, values in issues.items():
        if name not in wraw:
            raise FormatError(str(path), f"issueWeights.{name}", "missing weight")
        weights[name] = _num(path, f"issueWeights.{name}", wraw[name])
        if name not in utils:
            raise FormatError(str(path), f"issueUtilities.{name}", "missing utilities")
        scores[name] = _issue_utilities(path, name, utils[name], values)
    weights = normalised_weights(str(path), "issueWeights", weights)
    batna = 0.0
    bid = space.get("reservationBid")
    if bid is not None:
        bid = _obj(path, "reservationBid", bid)
        chosen = _obj(path, "reservationBid.issuevalues", bid.get("issuevalues", {}))
        for name, v in chosen.items():
            if name not in issues:
                raise FormatError(str(path), f"reservationBid.issuevalues.{name}",
                                  "unknown issue")
            value = match_value(v, issues[name])
            if value is None:
                raise FormatError(str(path), f"reservationBid.issuevalues.{name}",
                                  f"unknown value {v!r}")
            batna += weights[name] * scores[name][value]
    batna = tidy(batna)
    utility = {"type": "linear_additive", "weights": weights,
               "values": {n: {v: scores[n][v] for v in issues[n]} for n in issues}}
    return issues, utility, batna, domain


class GeniusWebImporter:
    """GeniusWeb JSON: a folder of profiles (and optionally the domain file), or
    ``profile1.json,profile2.json``."""

    name = "geniusweb"
    description = "GeniusWeb JSON (ANAC 2020-2022, ANL): LinearAdditiveUtilitySpace profiles"

    def read(self, path: str) -> Imported:
        files = input_files(path, ".json")
        docs = [(f, _load(f)) for f in files]
        notes = [f"{f.name} is the ANL domain's precomputed analysis (Nash, Kalai, Pareto "
                 "front), not a profile; it was not read (accord analyze computes its own)."
                 for f, d in docs if is_anl_analysis(d)]
        docs = [(f, d) for f, d in docs if not is_anl_analysis(d)]
        domain_docs = [(f, d) for f, d in docs
                       if isinstance(d, dict) and "issuesValues" in d and ROOT not in d]
        profiles = [(f, d) for f, d in docs if (f, d) not in domain_docs]
        if len(profiles) < 2:
            raise FormatError(path, "<profiles>", f"expected two or more profile files, "
                              f"found {len(profiles)}")
        parties: dict[str, Any] = {}
        taken: set[str] = set()
        issues0: dict[str, list[Any]] | None = None
        name = ""
        for f, doc in profiles:
            issues, utility, batna, domain = read_profile(f, doc)
            if issues0 is None:
                issues0, name = issues, str(domain.get("name") or f.parent.name or "imported")
            elif issues != issues0:
                raise FormatError(str(f), "domain", f"this profile's domain differs from "
                                  f"that of {profiles[0][0]}")
            parties[party_name(f, taken)] = {"batna": batna, "utility": utility}
        assert issues0 is not None
        for f, d in domain_docs:
            if read_issues(f, {"issuesValues": d["issuesValues"]}) != issues0:
                raise FormatError(str(f), "issuesValues", "the domain file differs from the "
                                  "profiles' domain")
        desc = "Imported from GeniusWeb JSON profiles " + ", ".join(
            f.name for f, _ in profiles) + "."
        data = {"name": name, "description": desc, "issues": issues0, "parties": parties}
        return Imported(data, tuple(notes))
