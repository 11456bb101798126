"""Render a party's private utility for its own LLM session.

:func:`utility_payload` is the structured form (additive weights and scores, or a table);
:func:`readable_utility` the words the session's setup carries, which the stub server's
rule-based negotiator (``accord.domains.bargaining.stub``) reads like a model.
"""

from __future__ import annotations

import json
from typing import Any

from accord.agents.guards.detector import PrivateValue
from accord.core.outcomes import OutcomeSpace
from accord.core.utility import (
    AllocationUtility,
    LinearAdditiveUtility,
    TableUtility,
    UtilityFunction,
)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def utility_payload(utility: UtilityFunction, space: OutcomeSpace, batna: float
                    ) -> dict[str, Any]:
    """The machine-readable utility: additive or table form (see the stub's contract)."""
    issues = {i.name: list(i.values) for i in space.issues}
    if isinstance(utility, (LinearAdditiveUtility, AllocationUtility)):
        if isinstance(utility, LinearAdditiveUtility):
            weights = {i.name: utility.weights.get(i.name, 0.0) for i in space.issues}
            values = {i.name: {str(v): utility._lookup.get(i.name, {}).get(str(v), 0.0)
                               for v in i.values} for i in space.issues}
        else:
            weights = {i.name: 1.0 for i in space.issues}
            values = {}
            for i in space.issues:
                unit = utility.unit_values.get(i.name, 0.0)
                count = utility.counts.get(i.name, 0)
                values[i.name] = {str(v): unit * (int(v) if utility.side == 0 else count - int(v))
                                  for v in i.values}
        return {"issues": issues, "weights": weights, "values": values, "batna": batna}
    if isinstance(utility, TableUtility):
        rows = [{"package": space.package(k), "utility": u} for k, u in utility.table.items()]
        return {"issues": issues, "table": rows, "default": utility.default, "batna": batna}
    vals = utility.values(space)
    rows = [{"package": space.package(k), "utility": float(vals[k])} for k in range(space.size)]
    return {"issues": issues, "table": rows, "default": 0.0, "batna": batna}


def readable_utility(payload: dict[str, Any]) -> str:
    """A human-readable rendering of :func:`utility_payload`'s output."""
    lines = []
    if "weights" in payload:
        lines.append("Your utility of a package = sum over issues of weight x score(value).")
        for issue, w in payload["weights"].items():
            scores = ", ".join(f"{v} -> {_fmt(s)}" for v, s in payload["values"][issue].items())
            lines.append(f"- {issue} (weight {_fmt(w)}): {scores}")
    else:
        lines.append(f"Your utility of a package is listed below; any other package is worth "
                     f"{_fmt(payload['default'])}.")
        for row in sorted(payload["table"], key=lambda r: -r["utility"]):
            lines.append(f"- {json.dumps(row['package'])}: {_fmt(row['utility'])}")
    return "\n".join(lines)


def private_numbers(payload: dict[str, Any]) -> list[float]:
    """Every number in the private utility (for the leak detector)."""
    if "weights" in payload:
        nums = list(payload["weights"].values())
        for scores in payload["values"].values():
            nums.extend(scores.values())
        return [float(x) for x in nums]
    return [float(r["utility"]) for r in payload["table"]] + [float(payload["default"])]


def labelled_private_values(payload: dict[str, Any]) -> list[PrivateValue]:
    """Every number in the private utility, saying which weight, score or package it is."""
    if "weights" in payload:
        out = [PrivateValue(float(w), "weight", f"the weight of {k} ({_fmt(w)})")
               for k, w in payload["weights"].items()]
        for issue, scores in payload["values"].items():
            out.extend(PrivateValue(float(s), "score", f"the score of {issue}={v} ({_fmt(s)})")
                       for v, s in scores.items())
        return out
    rows = [PrivateValue(float(r["utility"]), "package",
                         f"the utility of {json.dumps(r['package'])} ({_fmt(r['utility'])})")
            for r in payload["table"]]
    return [*rows, PrivateValue(float(payload["default"]), "package",
                                f"the utility of any other package ({_fmt(payload['default'])})")]
