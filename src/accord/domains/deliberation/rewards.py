"""Decisions, feasibility (with diagnostics) and rewards, exactly as the issue defines them.

* Menu: reward = sum over chosen dishes of the sum of guests' scores; 0 when the menu is
  invalid (an unknown or repeated dish, or more of some ingredient needed than exists).
* Task allocation: reward = sum of the efficiency of each assigned task's agent; 0 when
  invalid (unknown task or agent, a task given to two agents, an agent's private use above
  its own resources, or the summed public use above a public total). Missing
  efficiency = 0.

Feasibility is decided in exact rational arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from accord.domains.deliberation.load import Instance, MenuInstance, TaskInstance, exact

MenuDecision = tuple[str, ...]
"""A menu: the chosen dishes (order kept, repeats kept so they can be flagged)."""
TaskDecision = dict[str, str]
"""A task allocation: task -> agent for every assigned task."""
Decision = MenuDecision | TaskDecision

_UNASSIGNED = {"", "none", "null", "unassigned", "nobody"}


class DecisionFormatError(ValueError):
    """A decision whose shape cannot be read at all (not a list / mapping of names)."""


@dataclass(frozen=True)
class Feasibility:
    """Whether a decision is valid, with human-readable problems and machine-readable data.

    ``deficits`` maps a resource label (``egg``, ``agent_0/Time``, ``Budget``) to
    ``{"need": x, "have": y}`` for every violated capacity; ``usage`` holds the use of
    every resource label the decision touches.
    """

    valid: bool
    problems: tuple[str, ...] = ()
    deficits: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    usage: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


def normalize_menu(raw: Any) -> MenuDecision:
    """Read a menu from a list of dish names or a mapping dish -> 0/1 (or bool)."""
    if isinstance(raw, str):
        raise DecisionFormatError("a menu must be a list of dish names, not one string")
    if isinstance(raw, Mapping):
        out = []
        for dish, flag in raw.items():
            if flag in (1, True, "1", "yes", "true"):
                out.append(str(dish))
            elif flag not in (0, False, "0", "no", "false", None):
                raise DecisionFormatError(f"menu entry {dish!r} must be 0/1, got {flag!r}")
        return tuple(out)
    if isinstance(raw, Sequence):
        if not all(isinstance(d, str) for d in raw):
            raise DecisionFormatError("a menu must be a list of dish names (strings)")
        return tuple(raw)
    raise DecisionFormatError(f"a menu must be a list of dish names, got {type(raw).__name__}")


def normalize_assignment(raw: Any, agents: Sequence[str]) -> tuple[TaskDecision, list[str]]:
    """Read an allocation from ``{task: agent}`` or ``{agent: [tasks]}``.

    Returns the task -> agent map and the tasks that were given to more than one agent
    (a consistency violation that makes the decision invalid).
    """
    if not isinstance(raw, Mapping):
        raise DecisionFormatError(f"an allocation must be a mapping, got {type(raw).__name__}")
    out: TaskDecision = {}
    doubled: list[str] = []
    if raw and all(k in agents and isinstance(v, list | tuple) for k, v in raw.items()):
        for agent, tasks in raw.items():
            for task in tasks:
                if not isinstance(task, str):
                    raise DecisionFormatError(f"task names must be strings, got {task!r}")
                if task in out and out[task] != agent:
                    doubled.append(task)
                out[task] = agent
        return out, doubled
    for task, agent in raw.items():
        if agent is None or (isinstance(agent, str) and agent.strip().lower() in _UNASSIGNED):
            continue
        if not isinstance(agent, str):
            raise DecisionFormatError(f"task {task!r}: agent must be a name, got {agent!r}")
        out[str(task)] = agent
    return out, doubled


def normalize_decision(inst: Instance, raw: Any) -> tuple[Decision, list[str]]:
    """A decision of the instance's kind from raw JSON data, plus consistency problems."""
    if isinstance(inst, MenuInstance):
        return normalize_menu(raw), []
    assignment, doubled = normalize_assignment(raw, inst.agents)
    return assignment, [f"task {t!r} is assigned to more than one agent" for t in doubled]


def _num(x: Fraction) -> float:
    return float(x)


def check_menu(inst: MenuInstance, menu: Sequence[str]) -> Feasibility:
    """Validity of a menu with per-ingredient usage and deficits."""
    problems: list[str] = []
    seen: set[str] = set()
    need: dict[str, Fraction] = {}
    for dish in menu:
        if dish not in inst.recipes:
            problems.append(f"unknown dish {dish!r}")
            continue
        if dish in seen:
            problems.append(f"dish {dish!r} appears more than once")
        seen.add(dish)
        for ing, amt in inst.recipes[dish].items():
            need[ing] = need.get(ing, Fraction(0)) + exact(amt)
    usage: dict[str, dict[str, float]] = {}
    deficits: dict[str, dict[str, float]] = {}
    for ing, n in need.items():
        have = exact(inst.ingredients.get(ing, 0))
        usage[ing] = {"need": _num(n), "have": _num(have)}
        if n > have:
            deficits[ing] = usage[ing]
            problems.append(f"needs {_num(n):g} {ing} but only {_num(have):g} available")
    return Feasibility(not problems, tuple(problems), deficits, usage)


def check_assignment(inst: TaskInstance, assignment: Mapping[str, str],
                     extra_problems: Sequence[str] = ()) -> Feasibility:
    """Validity of a task allocation with private (per agent) and public usage/deficits."""
    problems = list(extra_problems)
    public = set(inst.public_resources)
    priv_use: dict[tuple[str, str], Fraction] = {}
    pub_use: dict[str, Fraction] = {}
    for task, agent in assignment.items():
        if task not in inst.tasks:
            problems.append(f"unknown task {task!r}")
            continue
        if agent not in inst.agents:
            problems.append(f"task {task!r}: unknown agent {agent!r}")
            continue
        for res, amt in inst.requirements.get(task, {}).items():
            if res in public:
                pub_use[res] = pub_use.get(res, Fraction(0)) + exact(amt)
            else:
                priv_use[agent, res] = priv_use.get((agent, res), Fraction(0)) + exact(amt)
    usage: dict[str, dict[str, float]] = {}
    deficits: dict[str, dict[str, float]] = {}
    for (agent, res), n in sorted(priv_use.items()):
        have = exact(inst.private_resources.get(agent, {}).get(res, 0))
        label = f"{agent}/{res}"
        usage[label] = {"need": _num(n), "have": _num(have)}
        if n > have:
            deficits[label] = usage[label]
            problems.append(f"{agent} needs {_num(n):g} {res} but has only {_num(have):g}")
    for res, n in sorted(pub_use.items()):
        have = exact(inst.public_resources[res])
        usage[res] = {"need": _num(n), "have": _num(have)}
        if n > have:
            deficits[res] = usage[res]
            problems.append(f"team needs {_num(n):g} {res} (public) but only "
                            f"{_num(have):g} exist in total")
    return Feasibility(not problems, tuple(problems), deficits, usage)


def check_decision(inst: Instance, decision: Any) -> Feasibility:
    """Validity of a raw or normalized decision for either kind of instance."""
    try:
        norm, extra = normalize_decision(inst, decision)
    except DecisionFormatError as exc:
        return Feasibility(False, (str(exc),))
    if isinstance(inst, MenuInstance):
        assert isinstance(norm, tuple)
        return check_menu(inst, norm)
    assert isinstance(norm, dict)
    return check_assignment(inst, norm, extra)


def decision_value(inst: Instance, decision: Decision) -> float:
    """The objective of a normalized decision ignoring feasibility (unknown parts count 0)."""
    if isinstance(inst, MenuInstance):
        return float(sum((inst.dish_value_exact(d) for d in dict.fromkeys(decision)
                          if d in inst.recipes), Fraction(0)))
    assert isinstance(decision, Mapping)
    return float(sum((exact(inst.efficiency.get(a, {}).get(t, 0))
                      for t, a in decision.items() if t in inst.tasks), Fraction(0)))


def reward(inst: Instance, decision: Any) -> float:
    """The shared terminal reward: the decision's value if valid, else 0 (None -> 0)."""
    if decision is None:
        return 0.0
    try:
        norm, extra = normalize_decision(inst, decision)
    except DecisionFormatError:
        return 0.0
    feas = check_decision(inst, norm) if not extra else Feasibility(False, tuple(extra))
    return decision_value(inst, norm) if feas.valid else 0.0


def menu_reward(inst: MenuInstance, menu: Sequence[str]) -> float:
    """Reward of a menu (list of dish names)."""
    return reward(inst, list(menu))


def task_reward(inst: TaskInstance, assignment: Mapping[str, Any]) -> float:
    """Reward of a task allocation (task -> agent or agent -> tasks)."""
    return reward(inst, assignment)
