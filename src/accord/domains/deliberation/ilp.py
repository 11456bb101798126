"""The ground-truth optimum of an instance (the R_max of NR), via the HiGHS ILP."""

from __future__ import annotations

from dataclasses import dataclass

from accord.domains.deliberation.load import Instance, MenuInstance, TaskInstance
from accord.domains.deliberation.rewards import Decision
from accord.solvers.ilp import max_value_assignment, max_weight_selection

#: seconds any optimum here may search unless the caller says otherwise: the shipped
#: instances solve in milliseconds, a hostile one inside the size caps runs for minutes or more
DEFAULT_TIME_LIMIT = 60.0


@dataclass(frozen=True)
class Optimum:
    """The maximum reward and one decision that reaches it; with a time limit that ran
    out, the best decision found and ``optimal=False`` (not proven the maximum)."""

    reward: float
    decision: Decision
    optimal: bool = True


def menu_optimum(inst: MenuInstance, time_limit: float | None = DEFAULT_TIME_LIMIT
                 ) -> Optimum:
    """``max c^T x  s.t.  A x <= S^I, x in {0,1}`` (paper A.1.1)."""
    dishes = inst.dishes
    ings = sorted({i for r in inst.recipes.values() for i in r} | set(inst.ingredients))
    usage = [[inst.recipes[d].get(i, 0) for d in dishes] for i in ings]
    capacity = [inst.ingredients.get(i, 0) for i in ings]
    res = max_weight_selection([inst.dish_value_exact(d) for d in dishes], usage, capacity,
                               time_limit)
    return Optimum(res.objective, tuple(d for d, x in zip(dishes, res.x, strict=True) if x),
                   res.optimal)


def task_optimum(inst: TaskInstance, time_limit: float | None = DEFAULT_TIME_LIMIT
                 ) -> Optimum:
    """``max sum v_ij x_ij`` with one agent per task, private and pooled public limits."""
    tasks = list(inst.tasks)
    priv = inst.private_keys()
    pub = list(inst.public_resources)
    res = max_value_assignment(
        [[inst.efficiency.get(a, {}).get(t, 0) for t in tasks] for a in inst.agents],
        [[inst.requirements.get(t, {}).get(r, 0) for t in tasks] for r in priv],
        [[inst.private_resources.get(a, {}).get(r, 0) for r in priv] for a in inst.agents],
        [[inst.requirements.get(t, {}).get(p, 0) for t in tasks] for p in pub],
        [inst.public_resources[p] for p in pub],
        time_limit,
    )
    decision = {t: inst.agents[a] for t, a in zip(tasks, res.agent_of, strict=True)
                if a is not None}
    return Optimum(res.objective, decision, res.optimal)


def optimum(inst: Instance, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Optimum:
    """The optimum of either kind of instance, searched for at most ``time_limit`` seconds
    (``None``: no limit; see :class:`Optimum` for an answer cut short)."""
    if isinstance(inst, MenuInstance):
        return menu_optimum(inst, time_limit)
    return task_optimum(inst, time_limit)
