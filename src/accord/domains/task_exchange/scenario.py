"""The task-exchange scenario model (seed 000, Appendix A.1-A.3): frozen data plus pure functions.

A :class:`TaskUniverse` holds the atomic tasks (TaskBench tool calls), the main tasks
and one natural-language description for every composite (all 2^n masks). A
:class:`Scenario` adds two agents, each with its original main task, its preference
text and its utility table (raw 0-100 scores normalised by the agent's maximum, A.2).
An agent only ever sees its own table, through :meth:`Scenario.view`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from accord.domains.task_exchange.masks import (
    all_masks,
    bits_of,
    format_mask,
    full_mask,
    partitions,
)


class ScenarioError(ValueError):
    """A scenario or task universe that is inconsistent; the message names file and key."""


@dataclass(frozen=True)
class AtomicTask:
    """One indivisible tool call; ``bit`` is its position in every mask."""

    bit: int
    tool: str
    call: str
    label: str


@dataclass(frozen=True)
class MainTask:
    """A TaskBench user request made of atomic tasks (``mask``)."""

    id: str
    mask: int
    request: str


@dataclass(frozen=True)
class TaskUniverse:
    """Atomic tasks, main tasks and the description of every composite task (index = mask)."""

    name: str
    atomic: tuple[AtomicTask, ...]
    main_tasks: tuple[MainTask, ...]
    descriptions: tuple[str, ...]
    _index: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.atomic)
        for i, task in enumerate(self.atomic):
            if task.bit != i:
                raise ScenarioError(f"atomic_tasks[{i}]: bit is {task.bit}, expected {i}")
        if len(self.descriptions) != 1 << n:
            raise ScenarioError(
                f"composites: {len(self.descriptions)} descriptions for {n} atomic tasks, "
                f"expected 2^{n} = {1 << n}")
        index: dict[str, int] = {}
        for mask, text in enumerate(self.descriptions):
            key = format_mask(mask, n)
            if not text or not text.strip():
                raise ScenarioError(f"composites[{key!r}]: empty description")
            if text in index:
                other = format_mask(index[text], n)
                raise ScenarioError(
                    f"composites[{key!r}]: same description as composites[{other!r}]; "
                    "descriptions identify composites and must be unique")
            index[text] = mask
        for main in self.main_tasks:
            if not 0 < main.mask < 1 << n:
                raise ScenarioError(f"main_tasks[{main.id!r}]: mask {main.mask} out of range")
        object.__setattr__(self, "_index", index)

    @property
    def n(self) -> int:
        """Number of atomic tasks."""
        return len(self.atomic)

    @property
    def full(self) -> int:
        """The all-ones mask."""
        return full_mask(self.n)

    def fmt(self, mask: int) -> str:
        """``mask`` as a bit string of this universe's width."""
        return format_mask(mask, self.n)

    def description(self, mask: int) -> str:
        """The composite task description of ``mask``."""
        return self.descriptions[mask]

    def mask_of(self, description: str) -> int | None:
        """The mask of an exactly matching description, or ``None`` if it is not listed."""
        return self._index.get(description)

    def labels(self, mask: int) -> list[str]:
        """Natural-language labels of the atomic tasks in ``mask``."""
        return [self.atomic[i].label for i in bits_of(mask)]

    def main_task(self, task_id: str) -> MainTask:
        """The main task with id ``task_id``."""
        for task in self.main_tasks:
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.main_tasks)
        raise ScenarioError(f"unknown main task {task_id!r}; known: {known}")


@dataclass(frozen=True)
class AgentProfile:
    """One agent: role name, original main task, preference text, raw and normalised utilities."""

    role: str
    main_task: str
    preference: str
    raw_scores: tuple[Fraction, ...]
    utilities: tuple[Fraction, ...]


def normalise_scores(raw: Sequence[Fraction | int | float]) -> tuple[Fraction, ...]:
    """A.2: ``U(a, c) = r_{a,c} / max_c r_{a,c}`` (all zero when the maximum is 0), exactly."""
    vals = [Fraction(r) if not isinstance(r, float) else Fraction(str(r)) for r in raw]
    top = max(vals, default=Fraction(0))
    if top <= 0:
        return tuple(Fraction(0) for _ in vals)
    return tuple(v / top for v in vals)


@dataclass(frozen=True)
class PrivateView:
    """What one agent knows: the public universe, both original masks, only its own utilities."""

    role: str
    partner: str
    universe: TaskUniverse
    initial: Mapping[str, int]
    utilities: tuple[Fraction, ...]
    preference: str
    turn_limit: int

    def utility(self, mask: int) -> Fraction:
        """This agent's normalised utility for holding composite ``mask``."""
        return self.utilities[mask]

    @property
    def own_initial(self) -> int:
        """This agent's original main-task mask (its disagreement outcome)."""
        return self.initial[self.role]


@dataclass(frozen=True)
class Scenario:
    """A universe, two agent profiles and the turn limit."""

    name: str
    title: str
    universe: TaskUniverse
    agents: tuple[AgentProfile, ...]
    turn_limit: int = 10

    def __post_init__(self) -> None:
        if len(self.agents) != 2:
            raise ScenarioError(f"agents: exactly two agents required, got {len(self.agents)}")
        roles = [a.role for a in self.agents]
        if roles[0] == roles[1]:
            raise ScenarioError(f"agents: both agents are called {roles[0]!r}")
        masks = [self.universe.main_task(a.main_task).mask for a in self.agents]
        if masks[0] & masks[1] or masks[0] | masks[1] != self.universe.full:
            raise ScenarioError(
                "agents: the two original main tasks must split the atomic tasks exactly "
                f"(got {self.universe.fmt(masks[0])} and {self.universe.fmt(masks[1])})")
        size = 1 << self.universe.n
        for i, a in enumerate(self.agents):
            if len(a.utilities) != size or len(a.raw_scores) != size:
                raise ScenarioError(f"agents[{i}] ({a.role}): utility table needs {size} entries")
        if self.turn_limit < 2:
            raise ScenarioError(f"turn_limit: must be at least 2, got {self.turn_limit}")

    @property
    def roles(self) -> tuple[str, str]:
        """The two role names, first mover first."""
        return (self.agents[0].role, self.agents[1].role)

    def profile(self, role: str) -> AgentProfile:
        """The profile of ``role``."""
        for a in self.agents:
            if a.role == role:
                return a
        raise KeyError(f"unknown role {role!r}; roles are {', '.join(self.roles)}")

    def partner(self, role: str) -> str:
        """The other role."""
        first, second = self.roles
        return second if role == first else first

    @property
    def initial(self) -> dict[str, int]:
        """Original main-task mask of each role (the disagreement allocation)."""
        return {a.role: self.universe.main_task(a.main_task).mask for a in self.agents}

    def utility(self, role: str, mask: int) -> Fraction:
        """Normalised utility of ``role`` holding composite ``mask``."""
        return self.profile(role).utilities[mask]

    def point(self, allocation: Mapping[str, int]) -> tuple[Fraction, Fraction]:
        """The utility pair (first role, second role) of an allocation ``role -> mask``."""
        a, b = self.roles
        return (self.utility(a, allocation[a]), self.utility(b, allocation[b]))

    def outcomes(self) -> list[tuple[dict[str, int], tuple[Fraction, Fraction]]]:
        """Every feasible final allocation (a split into two non-empty composites) and its point."""
        a, b = self.roles
        out = []
        for ma, mb in partitions(self.universe.n):
            alloc = {a: ma, b: mb}
            out.append((alloc, self.point(alloc)))
        return out

    def view(self, role: str) -> PrivateView:
        """The projection one agent receives (its own utilities only)."""
        prof = self.profile(role)
        return PrivateView(role, self.partner(role), self.universe, self.initial,
                           prof.utilities, prof.preference, self.turn_limit)


def composite_masks(universe: TaskUniverse) -> range:
    """All masks of the universe (convenience for iteration)."""
    return all_masks(universe.n)


__all__ = [
    "AgentProfile",
    "AtomicTask",
    "MainTask",
    "PrivateView",
    "Scenario",
    "ScenarioError",
    "TaskUniverse",
    "composite_masks",
    "normalise_scores",
]
