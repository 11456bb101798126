"""Genius XML (ANAC 2010-2019): one domain file and one profile file per party.

Domain: ``negotiation_template/utility_space/objective/issue/item`` (or a bare
``utility_space``); a discrete issue lists ``item value=...``; an integer issue
(``type="integer"``) has ``lowerbound``/``upperbound`` and is expanded to its values.
Profile: ``utility_space`` whose ``objective`` holds the issues with ``item evaluation=...``
(integer issues: items, or an ``evaluator ftype="linear"`` with ``slope``/``offset`` or
``utilLowestValue``/``utilHighestValue``, whose utility is ``offset + slope x (value -
lowerbound)`` clamped to [0, 1] as in Genius), ``weight index=... value=...`` per issue, and
``reservation`` and ``discount_factor`` values.

As Genius does, a discrete issue's evaluations are normalised by their maximum (the
utility of a value is its evaluation over the issue's largest evaluation, and 0 when every
evaluation is 0) and the weights are scaled to sum 1 (Genius uses them as written; the
import notes a sum off by more than 0.001). The reservation value becomes the
party's BATNA, and a ``discount_factor`` below 1 the party's ``discount``: accord discounts
utilities and the BATNA as Genius does, ``u * d ** t`` with ``t`` the relative time
(:mod:`accord.core.discount`). A factor of 0 or 1 means no discount in Genius (its
``discount`` returns the utility unchanged for ``d <= 0`` or ``d >= 1``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from accord.formats.base import (
    FormatError,
    Imported,
    input_files,
    normalised_weights,
    party_name,
    tidy,
)
from accord.formats.xmlsafe import integer, number, parse_xml

#: an integer issue is expanded to at most this many values
MAX_INTEGER_VALUES = 10_000
#: weights summing to 1 within this are not noted when scaled (ANAC's Laptop: 1.000052)
WEIGHT_SUM_NOTED = 0.001
#: a discrete issue whose largest evaluation is below this is worth 0 in every value
#: (Genius's ``EvaluatorDiscrete.normalize`` returns 0 rather than divide by it)
GENIUS_MIN_MAX_EVALUATION = 0.00001


def is_profile(root: ET.Element) -> bool:
    """Whether a Genius XML root is a profile (it has weights or evaluations, or is a
    nonlinear utility space), not a domain."""
    return root.find(".//weight") is not None or any(
        "evaluation" in item.attrib for item in root.iter("item")) or is_nonlinear(root)


def is_nonlinear(root: ET.Element) -> bool:
    """Whether a Genius XML root is a nonlinear utility space (ANAC 2014's profiles:
    ``<utility_space type="nonlinear">`` with ``<utility>``/``<ufun>`` constraints)."""
    return ((root.tag == "utility_space" and (root.get("type") or "").lower() == "nonlinear")
            or root.find(".//ufun") is not None or root.find(".//hyperRectangle") is not None)


def _objective(path: Path, root: ET.Element) -> ET.Element:
    space = root if root.tag == "utility_space" else root.find("utility_space")
    if root.tag not in ("utility_space", "negotiation_template") or space is None:
        raise FormatError(str(path), f"<{root.tag}>", "wrong root element: a Genius file "
                          "has root <negotiation_template> or <utility_space>")
    objective = space.find("objective")
    if objective is None:
        raise FormatError(str(path), "utility_space", "missing <objective> element")
    return objective


def _issue_values(path: Path, issue: ET.Element) -> list[Any]:
    name = issue.get("name")
    where = f"issue {name!r}"
    kind = (issue.get("type") or issue.get("etype") or "discrete").lower()
    if kind == "integer":
        low = integer(path, f"{where} lowerbound", issue.get("lowerbound"))
        high = integer(path, f"{where} upperbound", issue.get("upperbound"))
        if high < low:
            raise FormatError(str(path), where, f"upperbound {high} is below lowerbound {low}")
        if high - low + 1 > MAX_INTEGER_VALUES:
            raise FormatError(str(path), where, f"{high - low + 1} integer values; at most "
                              f"{MAX_INTEGER_VALUES} are expanded")
        return list(range(low, high + 1))
    if kind != "discrete":
        raise FormatError(str(path), where, f"issue type {kind!r} is not supported (only "
                          "discrete and integer issues; real issues have no finite values)")
    values: list[Any] = []
    for item in issue.findall("item"):
        value = item.get("value")
        if value is None:
            raise FormatError(str(path), f"{where} item {item.get('index')}",
                              "missing value attribute")
        if value in values:
            raise FormatError(str(path), f"{where} item {value!r}", "duplicate item")
        values.append(value)
    if not values:
        raise FormatError(str(path), where, "a discrete issue needs at least one <item>")
    return values


def read_domain(path: Path, root: ET.Element) -> dict[str, list[Any]]:
    """Issue name -> values, in file order."""
    issues: dict[str, list[Any]] = {}
    for issue in _objective(path, root).iter("issue"):
        name = issue.get("name")
        if not name:
            raise FormatError(str(path), f"issue {issue.get('index')}", "missing name")
        if name in issues:
            raise FormatError(str(path), f"issue {name!r}", "duplicate issue")
        issues[name] = _issue_values(path, issue)
    if not issues:
        raise FormatError(str(path), "objective", "no <issue> elements")
    return issues


def _linear_evaluator(path: Path, where: str, ev: ET.Element, values: list[Any]
                      ) -> dict[Any, float]:
    if not all(isinstance(v, int) for v in values):
        raise FormatError(str(path), f"{where} evaluator", "a linear evaluator needs an "
                          "integer issue; give a discrete issue's evaluations per <item>")
    if (ev.get("ftype") or "linear").lower() != "linear":
        raise FormatError(str(path), f"{where} evaluator", f"ftype {ev.get('ftype')!r} is "
                          "not supported (only linear)")
    low, high = values[0], values[-1]
    if ev.get("slope") is not None:
        slope = number(path, f"{where} evaluator slope", ev.get("slope"))
        offset = number(path, f"{where} evaluator offset", ev.get("offset", "0"))
    else:
        offset = number(path, f"{where} evaluator utilLowestValue", ev.get("utilLowestValue"))
        top = number(path, f"{where} evaluator utilHighestValue", ev.get("utilHighestValue"))
        slope = (top - offset) / (high - low) if high > low else 0.0
    # as Genius's EvaluatorInteger: offset + slope x (value - lowerbound), clamped to [0, 1]
    return {v: tidy(min(1.0, max(0.0, offset + slope * (v - low)))) for v in values}


def read_profile(path: Path, root: ET.Element, issues: dict[str, list[Any]],
                 notes: list[str] | None = None) -> tuple[dict[str, Any], float, float]:
    """(linear_additive utility spec, reservation value, discount factor) of a profile;
    sentences about what a person importing it should know are added to ``notes``."""
    if is_nonlinear(root):
        raise FormatError(str(path), "utility_space", "a nonlinear utility space (utilities "
                          "of constraints, <ufun>/<hyperRectangle>, as ANAC 2014's domains "
                          "have) is not supported: accord imports linear additive profiles "
                          "(issue weights and evaluations)")
    objective = _objective(path, root)
    by_index: dict[str, str] = {}
    scores: dict[str, dict[Any, float]] = {}
    for issue in objective.iter("issue"):
        name = issue.get("name")
        where = f"issue {name!r}"
        if name not in issues:
            raise FormatError(str(path), where, f"unknown issue; the domain's issues are "
                              f"{list(issues)[:10]}")
        by_index[issue.get("index", name)] = name
        values = issues[name]
        ev = issue.find("evaluator")
        evals: dict[Any, float] = {}
        if ev is not None and not issue.findall("item"):
            evals = _linear_evaluator(path, where, ev, values)
        else:
            known = {str(v): v for v in values}
            for item in issue.findall("item"):
                value = item.get("value")
                iw = f"{where} item {value!r}"
                if value not in known:
                    raise FormatError(str(path), iw, f"unknown item; the domain's items are "
                                      f"{[str(v) for v in values][:10]}")
                evals[known[value]] = number(path, f"{iw} evaluation", item.get("evaluation"))
            missing = [v for v in values if v not in evals]
            if missing:
                raise FormatError(str(path), f"{where} item {str(missing[0])!r}",
                                  "missing evaluation")
            top = max(evals.values())
            if min(evals.values()) < 0:
                raise FormatError(str(path), where, "negative evaluation")
            if top < GENIUS_MIN_MAX_EVALUATION:
                # Genius's EvaluatorDiscrete.normalize: every value of such an issue is
                # worth 0 (ANAC 2015's zoning plan has an issue one party scores all 0)
                evals = dict.fromkeys(evals, 0.0)
                if notes is not None:
                    notes.append(f"{path.name}: every evaluation of issue {name!r} is 0 "
                                 "(below 0.00001), so the issue adds nothing to this "
                                 "party's utility (as in Genius).")
            else:
                evals = {v: tidy(e / top) for v, e in evals.items()}
        scores[name] = evals
    missing_issues = [n for n in issues if n not in scores]
    if missing_issues:
        raise FormatError(str(path), f"issue {missing_issues[0]!r}", "missing from the profile")
    weights: dict[str, float] = {}
    # ANAC files may also weigh the objective itself (Fitness: <weight index="1"
    # value="1.0"/> for the root objective): not an issue's weight, so not read as one
    objectives = {o.get("index") for o in root.iter("objective")} - set(by_index)
    for w in objective.iter("weight"):
        index = w.get("index")
        if index in objectives:
            continue
        if index not in by_index:
            raise FormatError(str(path), f"weight index={index!r}", "no issue has this index")
        weights[by_index[index]] = number(path, f"weight index={index!r} value", w.get("value"))
    for name in issues:
        if name not in weights:
            raise FormatError(str(path), f"weight of issue {name!r}", "missing weight")
    total = sum(weights.values())
    weights = normalised_weights(str(path), "weight", weights)
    if notes is not None and abs(total - 1.0) > WEIGHT_SUM_NOTED:
        # Genius's AdditiveUtilitySpace reads a profile's weights as written (its
        # utility is capped at 1), so the scaled utilities differ from Genius's
        notes.append(f"{path.name}: the issue weights sum to {total:.6g}, not 1; accord "
                     "scales them to sum 1, while Genius uses them as written (capping a "
                     f"utility at 1): utilities here are Genius's divided by {total:.6g}.")
    res = root.find(".//reservation")
    reservation = 0.0 if res is None else number(path, "reservation value", res.get("value"))
    disc = root.find(".//discount_factor")
    discount = 1.0 if disc is None else number(path, "discount_factor value", disc.get("value"))
    if not 0 <= discount <= 1:
        raise FormatError(str(path), "discount_factor value", f"{discount} is not in [0, 1]")
    if discount == 0:
        discount = 1.0  # Genius: a factor of 0 is no discount (files write 0.0 for none)
    utility = {"type": "linear_additive", "weights": {n: weights[n] for n in issues},
               "values": {n: {v: scores[n][v] for v in issues[n]} for n in issues}}
    return utility, reservation, discount


class GeniusImporter:
    """Genius XML: a folder with one domain file and two or more profiles, or
    ``domain.xml,profile1.xml,profile2.xml``."""

    name = "genius"
    description = "Genius XML (ANAC 2010-2019): domain file + one profile per party"

    def read(self, path: str) -> Imported:
        files = input_files(path, ".xml")
        domains: list[tuple[Path, ET.Element]] = []
        profiles: list[tuple[Path, ET.Element]] = []
        for f in files:
            root = parse_xml(f)
            (profiles if is_profile(root) else domains).append((f, root))
        if len(domains) != 1:
            found = ", ".join(str(f) for f, _ in domains) or "none"
            raise FormatError(path, "<domain>", f"expected exactly one domain file (an XML "
                              f"without weights or evaluations), found {found}")
        if len(profiles) < 2:
            raise FormatError(path, "<profiles>", f"expected two or more profile files, "
                              f"found {len(profiles)}")
        dpath, droot = domains[0]
        issues = read_domain(dpath, droot)
        parties: dict[str, Any] = {}
        taken: set[str] = set()
        notes: list[str] = []
        for ppath, proot in profiles:
            utility, reservation, discount = read_profile(ppath, proot, issues, notes)
            pname = party_name(ppath, taken)
            parties[pname] = {"batna": reservation, "utility": utility}
            if discount < 1:  # the key is left out when there is no discount
                parties[pname]["discount"] = discount
        name = (Path(path).name if Path(path).is_dir() else dpath.stem) or dpath.stem
        desc = f"Imported from Genius XML {dpath.name} with profiles " + ", ".join(
            p.name for p, _ in profiles) + "."
        data = {"name": name, "description": desc, "issues": issues, "parties": parties}
        return Imported(data, tuple(notes))
