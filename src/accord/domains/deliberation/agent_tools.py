"""The agents' optional symbolic tools (paper section 2.2.5), as pure functions.

Both tools work on an agent's *estimated* state, never on the ground truth:

* **Solver** - the ILP optimum of the estimated state (``best_menu`` / ``best_allocation``);
* **Calculator** - a feasibility oracle with diagnostic feedback: which dishes are
  cookable and what is missing for the others (menu), or each agent's private load and
  the pooled public load against the estimated limits (task allocation), and, for a
  proposal, whether it fits and which resources fall short.

An estimate has the shape the observation module of the scaffold produces:
menu ``{"total_ingredients": {...}, "overall_preference": {dish: value}}``; task
allocation ``{"private_resources": {agent: {...}}, "public_resources": {...},
"efficiency": {agent: {task: e}}}``. ``shared`` is
:func:`accord.domains.deliberation.observations.shared_info` of the instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.domains.deliberation.errors import InstanceError
from accord.domains.deliberation.ilp import optimum
from accord.domains.deliberation.load import Instance, MenuInstance, parse_instance
from accord.domains.deliberation.rewards import (
    DecisionFormatError,
    check_decision,
    check_menu,
    decision_value,
    normalize_decision,
)


def estimate_instance(shared: Mapping[str, Any], estimate: Mapping[str, Any]) -> Instance:
    """The instance an estimate describes (raises :class:`InstanceError` when malformed)."""
    setting = shared["setting"]
    if setting != "task-allocation":
        prefs = {d: v for d, v in (estimate.get("overall_preference") or {}).items()
                 if d in shared["recipes"]}
        data: dict[str, Any] = {
            "setting": setting,
            "ingredients": dict(estimate.get("total_ingredients") or {}),
            "recipes": shared["recipes"], "guest_scores": {"estimate": prefs},
            "agents": shared["agents"]}
        return parse_instance(data, "<estimate>")
    public = dict.fromkeys(shared["public_resource_types"], 0)
    public.update(estimate.get("public_resources") or {})
    data = {"setting": setting, "agents": shared["agents"], "leader": shared["leader"],
            "tasks": shared["tasks"], "requirements": shared["requirements"],
            "efficiency": {a: {t: e for t, e in (row or {}).items() if t in shared["tasks"]}
                           for a, row in (estimate.get("efficiency") or {}).items()
                           if a in shared["agents"]},
            "private_resources": {a: row for a, row in
                                  (estimate.get("private_resources") or {}).items()
                                  if a in shared["agents"]},
            "public_resources": public}
    return parse_instance(data, "<estimate>")


def _as_json(inst: Instance, decision: Any) -> Any:
    return list(decision) if isinstance(inst, MenuInstance) else dict(decision)


#: seconds the Solver tool's ILP may search inside an episode (the shipped instances take
#: milliseconds; a hostile instance within the size caps runs for minutes or more)
SOLVER_TOOL_SECONDS = 10.0


def solver_tool(shared: Mapping[str, Any], estimate: Mapping[str, Any]) -> dict[str, Any]:
    """Solver: the best decision for the estimated state, its estimated value, or an error.

    The search stops after :data:`SOLVER_TOOL_SECONDS`; the answer then carries
    ``"proven_optimal": false`` (the key is absent when the answer is the optimum).
    """
    try:
        inst = estimate_instance(shared, estimate)
    except InstanceError as exc:
        return {"tool": "solver", "error": f"cannot solve: {exc.key}: {exc.problem}"}
    best = optimum(inst, SOLVER_TOOL_SECONDS)
    key = "best_menu" if isinstance(inst, MenuInstance) else "best_allocation"
    out = {"tool": "solver", key: _as_json(inst, best.decision), "estimated_value": best.reward,
           "decision": _as_json(inst, best.decision)}
    if not best.optimal:
        out["proven_optimal"] = False
    return out


def calculator_tool(shared: Mapping[str, Any], estimate: Mapping[str, Any],
                    proposal: Any = None) -> dict[str, Any]:
    """Calculator: feasibility diagnostics on the estimated state (and of ``proposal``)."""
    try:
        inst = estimate_instance(shared, estimate)
    except InstanceError as exc:
        return {"tool": "calculator", "error": f"bad estimate: {exc.key}: {exc.problem}"}
    out: dict[str, Any] = {"tool": "calculator"}
    if isinstance(inst, MenuInstance):
        available, missing = [], {}
        for dish in inst.dishes:
            feas = check_menu(inst, [dish])
            if feas.valid:
                available.append(dish)
            else:
                missing[dish] = {i: d["need"] - d["have"] for i, d in feas.deficits.items()}
        out.update(available_dishes=available, unavailable_dishes_info=missing)
    if proposal is not None:
        try:
            norm, _ = normalize_decision(inst, proposal)
        except DecisionFormatError as exc:
            out["proposal"] = {"feasible": False, "problems": [str(exc)]}
            return out
        feas = check_decision(inst, proposal)
        out["proposal"] = {
            "feasible": feas.valid, "problems": list(feas.problems),
            "deficits": {k: dict(v) for k, v in feas.deficits.items()},
            "usage": {k: dict(v) for k, v in feas.usage.items()},
            "estimated_value": decision_value(inst, norm) if feas.valid else 0.0}
    return out
