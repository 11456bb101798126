"""Pure metrics of the deliberation benchmark (paper section 2.2.4, appendix B.1, Table 4).

* NR = reward / R_max x 100 (invalid decisions score 0);
* NAR = NR when valid, else R_subset / R_max x |D_subset| / |D_original| x 100, where
  D_subset is the greedy maximal feasible subset of the decision's components;
* VR = percentage of valid decisions;
* HR = share of state components whose estimate strictly exceeds the truth;
* NMAE_pub = mean relative error of the estimated public totals;
* Tool NR = NR of the last Solver output; compliance = the final decision equals it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from accord.domains.deliberation.load import Instance, MenuInstance, TaskInstance, exact
from accord.domains.deliberation.rewards import (
    Decision,
    DecisionFormatError,
    check_assignment,
    check_menu,
    decision_value,
    normalize_decision,
    reward,
)


def normalized_reward(value: float, max_reward: float) -> float:
    """NR: ``value / max_reward * 100`` (100 when both are 0)."""
    if max_reward <= 0:
        return 100.0 if value >= max_reward else 0.0
    return 100.0 * value / max_reward


def greedy_feasible_subset(inst: Instance, decision: Any) -> tuple[Decision, int]:
    """The greedy maximal feasible subset of a decision and the decision's size.

    Components (dishes, or task -> agent pairs) are visited by decreasing value (ties in
    the decision's order) and kept whenever the kept set stays feasible. Unknown dishes,
    tasks or agents are never kept; a repeated dish counts as a separate component.
    """
    norm, _ = normalize_decision(inst, decision)
    if isinstance(inst, MenuInstance):
        assert isinstance(norm, tuple)
        order = sorted(range(len(norm)), key=lambda i: -inst.dish_value_exact(norm[i])
                       if norm[i] in inst.recipes else 1)
        kept: list[str] = []
        for i in order:
            if check_menu(inst, [*kept, norm[i]]).valid:
                kept.append(norm[i])
        return tuple(d for d in norm if d in kept), len(norm)
    assert isinstance(norm, dict) and isinstance(inst, TaskInstance)
    pairs = list(norm.items())
    if isinstance(decision, Mapping) and all(isinstance(v, list | tuple)
                                             for v in decision.values()) and decision:
        size = sum(len(v) for v in decision.values())  # agent -> tasks: count every entry
    else:
        size = len(pairs)
    order = sorted(range(len(pairs)), key=lambda i: -exact(
        inst.efficiency.get(pairs[i][1], {}).get(pairs[i][0], 0)))
    chosen: dict[str, str] = {}
    for i in order:
        task, agent = pairs[i]
        if check_assignment(inst, {**chosen, task: agent}).valid:
            chosen[task] = agent
    return {t: a for t, a in pairs if chosen.get(t) == a}, size


def normalized_adjusted_reward(inst: Instance, decision: Any, max_reward: float) -> float:
    """NAR (eq. 2): NR for a valid decision, partial credit for an invalid one."""
    if decision is None:
        return 0.0
    if check_valid(inst, decision):
        return normalized_reward(reward(inst, decision), max_reward)
    try:
        subset, size = greedy_feasible_subset(inst, decision)
    except DecisionFormatError:
        return 0.0
    if size == 0 or max_reward <= 0:
        return 0.0
    return decision_value(inst, subset) / max_reward * (len(subset) / size) * 100.0


def valid_ratio(valid: Sequence[bool]) -> float:
    """VR: percentage of valid decisions (0 for no episodes)."""
    return 100.0 * sum(map(bool, valid)) / len(valid) if valid else 0.0


def truth_vector(inst: Instance) -> dict[str, Fraction]:
    """The resource part of the true state, flat: ``ing``, ``agent/res``, ``pub:res``."""
    if isinstance(inst, MenuInstance):
        return {i: exact(v) for i, v in inst.ingredients.items()}
    out = {f"{a}/{r}": exact(v) for a, row in inst.private_resources.items()
           for r, v in row.items()}
    out.update({f"pub:{p}": exact(v) for p, v in inst.public_resources.items()})
    return out


def estimate_vector(inst: Instance, estimate: Mapping[str, Any]) -> dict[str, Fraction]:
    """An agent's state estimate flattened like :func:`truth_vector` (bad numbers dropped)."""
    def num(v: Any) -> Fraction | None:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return None
        return exact(v)

    out: dict[str, Fraction] = {}
    if isinstance(inst, MenuInstance):
        for k, v in (estimate.get("total_ingredients") or {}).items():
            if (x := num(v)) is not None:
                out[str(k)] = x
        return out
    for a, row in (estimate.get("private_resources") or {}).items():
        for r, v in (row or {}).items() if isinstance(row, Mapping) else ():
            if (x := num(v)) is not None:
                out[f"{a}/{r}"] = x
    for p, v in (estimate.get("public_resources") or {}).items():
        if (x := num(v)) is not None:
            out[f"pub:{p}"] = x
    return out


def hallucination_rate(estimate: Mapping[str, Fraction | float],
                       truth: Mapping[str, Fraction | float]) -> float:
    """HR (eq. 4): share of components (union of keys; missing = 0) with estimate > truth."""
    keys = set(estimate) | set(truth)
    if not keys:
        return 0.0
    over = sum(1 for k in keys if exact(estimate.get(k, 0)) > exact(truth.get(k, 0)))
    return over / len(keys)


def nmae_public(estimate: Mapping[str, Any], truth: Mapping[str, Any]) -> float:
    """NMAE_pub (eq. 5) over the union of public-resource keys (missing estimate = 0)."""
    keys = set(estimate) | set(truth)
    if not keys:
        return 0.0
    total = 0.0
    for k in keys:
        v, e = exact(truth.get(k, 0)), exact(estimate.get(k, 0))
        total += float(abs(e - v) / abs(v)) if v != 0 else (1.0 if e != 0 else 0.0)
    return total / len(keys)


def same_decision(inst: Instance, a: Any, b: Any) -> bool:
    """Whether two decisions are the same (menus as sets, allocations as maps)."""
    if a is None or b is None:
        return a is b
    try:
        na, _ = normalize_decision(inst, a)
        nb, _ = normalize_decision(inst, b)
    except DecisionFormatError:
        return False
    if isinstance(inst, MenuInstance):
        return sorted(na) == sorted(nb)
    return na == nb


def final_estimates(record: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Each agent's last recorded state estimate from an episode record."""
    out = {}
    for agent, history in (record.get("estimates") or {}).items():
        if history:
            out[agent] = history[-1]["estimate"]
    return out


def episode_metrics(inst: Instance, record: Mapping[str, Any], max_reward: float
                    ) -> dict[str, Any]:
    """reward, max_reward, nr, nar, valid, hr, nmae_pub, tool_nr, tool_compliance."""
    decision = record.get("decision")
    value = reward(inst, decision)
    valid = decision is not None and check_valid(inst, decision)
    ests = final_estimates(record)
    truth = truth_vector(inst)
    hr = (sum(hallucination_rate(estimate_vector(inst, e), truth) for e in ests.values())
          / len(ests)) if ests else None
    nmae = None
    if isinstance(inst, TaskInstance) and ests:
        nmae = sum(nmae_public(e.get("public_resources") or {}, inst.public_resources)
                   for e in ests.values()) / len(ests)
    tool = record.get("last_tool_decision")
    has_tool = "last_tool_decision" in record
    return {
        "reward": value, "max_reward": max_reward,
        "nr": normalized_reward(value, max_reward),
        "nar": normalized_adjusted_reward(inst, decision, max_reward),
        "valid": valid, "hr": hr, "nmae_pub": nmae,
        "tool_nr": normalized_reward(reward(inst, tool), max_reward) if has_tool else None,
        "tool_compliance": same_decision(inst, decision, tool) if has_tool else None,
    }


def check_valid(inst: Instance, decision: Any) -> bool:
    """Whether a raw decision satisfies every feasibility and consistency constraint."""
    try:
        norm, extra = normalize_decision(inst, decision)
    except DecisionFormatError:
        return False
    if extra:
        return False
    if isinstance(inst, MenuInstance):
        assert isinstance(norm, tuple)
        return check_menu(inst, norm).valid
    assert isinstance(norm, dict)
    return check_assignment(inst, norm).valid
