"""Binary integer programs solved exactly with HiGHS (via ``scipy.optimize.milp``).

Pure functions over plain numbers, used by the deliberation domain for its optimum
(menu design: a 0/1 multi-knapsack; task allocation: a generalized assignment with
private per-agent and pooled public capacities) and by its Solver tool.

Constraint rows are scaled to integers from the exact decimal value of every
coefficient (``Fraction``), so HiGHS never accepts a solution that is infeasible by a
rounding hair; the MIP gaps are set to zero so the objective is the true optimum.
Every returned solution is re-checked in exact arithmetic.

A ``time_limit`` (seconds) bounds HiGHS's search: when it runs out, the best solution
found so far is returned with ``optimal=False`` (all zeros, always feasible here since
capacities are non-negative, when HiGHS found none), so callers can say the answer is not
proven optimal.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Number = int | float | Fraction


class ILPError(RuntimeError):
    """HiGHS did not report an optimal solution (should not happen for these models)."""


@dataclass(frozen=True)
class ILPResult:
    """A 0/1 solution ``x`` and its objective value; ``optimal`` is false when a time
    limit stopped the search before optimality was proven."""

    x: tuple[int, ...]
    objective: float
    optimal: bool = True


def _frac(x: Number) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


def _integer_row(coeffs: Sequence[Number], rhs: Number) -> tuple[list[int], int]:
    fr = [_frac(a) for a in coeffs]
    b = _frac(rhs)
    scale = math.lcm(*(f.denominator for f in [*fr, b]))
    return [int(f * scale) for f in fr], int(b * scale)


def solve_binary_program(
    values: Sequence[Number],
    rows: Sequence[Sequence[Number]],
    rhs: Sequence[Number],
    time_limit: float | None = None,
) -> ILPResult:
    """Maximize ``values @ x`` over ``x in {0,1}^n`` subject to ``rows @ x <= rhs``.

    Variables with a non-positive value are fixed to 0 (they can never help). Raises
    :class:`ValueError` on shape mismatch or a bad ``time_limit`` and :class:`ILPError`
    if HiGHS fails. With ``time_limit`` seconds the answer may be a feasible, unproven
    one (``optimal=False``).
    """
    check_time_limit(time_limit)
    n = len(values)
    if len(rows) != len(rhs):
        raise ValueError(f"{len(rows)} constraint rows but {len(rhs)} right-hand sides")
    int_rows: list[list[int]] = []
    int_rhs: list[int] = []
    for i, (row, b) in enumerate(zip(rows, rhs, strict=True)):
        if len(row) != n:
            raise ValueError(f"constraint row {i} has {len(row)} coefficients, expected {n}")
        r, rb = _integer_row(row, b)
        int_rows.append(r)
        int_rhs.append(rb)
    upper = [1.0 if float(v) > 0 else 0.0 for v in values]
    if n == 0 or not any(upper):
        return ILPResult((0,) * n, 0.0)
    found, optimal = _highs(np.array([-float(v) for v in values]), int_rows, int_rhs, upper,
                            time_limit)
    x = [0] * n if found is None else found
    for row, b in zip(int_rows, int_rhs, strict=True):  # exact re-check
        if sum(a * xi for a, xi in zip(row, x, strict=True)) > b:
            if found is None:
                raise ILPError(f"no feasible solution found within the time limit of "
                               f"{time_limit:g} s")
            raise ILPError("HiGHS returned a solution that violates a constraint")
    return ILPResult(tuple(x), float(sum(_frac(v) for v, xi in zip(values, x, strict=True)
                                         if xi)), optimal)


def check_time_limit(time_limit: float | None) -> None:
    """``ValueError`` unless ``time_limit`` is ``None`` or a positive, finite number."""
    if time_limit is not None and not (isinstance(time_limit, int | float)
                                       and 0 < time_limit < math.inf):
        raise ValueError(f"time limit must be a positive number of seconds, got "
                         f"{time_limit!r}")



_FD_LOCK = threading.Lock()


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send whatever is written to file descriptor 1 meanwhile to descriptor 2.

    HiGHS prints some diagnostics (``HighsMipSolverData::...`` lines) with C ``printf``,
    whatever ``disp``/``output_flag`` say, straight onto the process's stdout, where they
    broke the one JSON document of ``--json`` commands. The solver's own output is kept
    (on stderr) and stdout carries only what accord prints. Python's buffered stdout is
    flushed first, so nothing of accord's moves across.
    """
    with _FD_LOCK:
        try:
            sys.stdout.flush()
            saved = os.dup(1)
        except (OSError, ValueError, AttributeError):  # no usable fd 1: nothing to guard
            yield
            return
        try:
            os.dup2(2, 1)
        except OSError:
            os.close(saved)
            yield
            return
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def _highs(cost: np.ndarray, rows: list[list[int]], rhs: list[int], upper: list[float],
           time_limit: float | None = None) -> tuple[list[int] | None, bool]:
    """Solve with HiGHS through ``scipy.optimize.milp`` (scipy bundles the same solver).

    highspy 1.16 prints its copyright banner from the ``Highs`` constructor, before any
    option can switch output off (ERGO-Code/HiGHS issues 1932 and 2749), which broke
    ``--json`` on stdout; scipy's build honours ``disp=False`` from the start.

    Returns the solution (``None`` when a time limit stopped HiGHS before it found one)
    and whether it is proven optimal.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csc_array

    n, m = len(cost), len(rows)
    a = csc_array(np.array(rows, dtype=float).reshape(m, n))
    options: dict[str, object] = {"disp": False, "mip_rel_gap": 0.0, "presolve": True}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    with stdout_to_stderr():
        res = milp(cost, integrality=np.ones(n), bounds=Bounds(np.zeros(n), np.array(upper)),
                   constraints=[LinearConstraint(a, -np.inf, np.array(rhs, dtype=float))],
                   options=options)
    if res.status == 1 and time_limit is not None:  # the time limit: best found, unproven
        return (None if res.x is None else [round(v) for v in res.x]), False
    if res.status != 0 or res.x is None:
        raise ILPError(f"HiGHS status {res.status}: {res.message}")
    return [round(v) for v in res.x], True


def max_weight_selection(
    values: Sequence[Number],
    usage: Sequence[Sequence[Number]],
    capacity: Sequence[Number],
    time_limit: float | None = None,
) -> ILPResult:
    """Choose items (each at most once) to maximize total value within capacities.

    ``usage[r][j]`` is how much of resource ``r`` item ``j`` uses; ``capacity[r]`` what
    exists. This is the menu-design program ``max c^T x s.t. A x <= S``.
    """
    return solve_binary_program(values, usage, capacity, time_limit)


@dataclass(frozen=True)
class Assignment:
    """An assignment: ``agent_of[t]`` is the agent index of task ``t`` or None;
    ``optimal`` is false when a time limit stopped the search before proving optimality."""

    agent_of: tuple[int | None, ...]
    objective: float
    optimal: bool = True


def max_value_assignment(
    values: Sequence[Sequence[Number]],
    private_need: Sequence[Sequence[Number]],
    private_capacity: Sequence[Sequence[Number]],
    public_need: Sequence[Sequence[Number]],
    public_capacity: Sequence[Number],
    time_limit: float | None = None,
) -> Assignment:
    """Assign each task to at most one agent to maximize the total value.

    ``values[a][t]``: value of agent ``a`` doing task ``t``; ``private_need[r][t]`` and
    ``private_capacity[a][r]``: each agent's own use of private resource ``r`` stays within
    its capacity; ``public_need[p][t]`` summed over all assigned tasks stays within
    ``public_capacity[p]``.
    """
    n_a = len(values)
    n_t = len(values[0]) if n_a else 0
    if any(len(row) != n_t for row in values):
        raise ValueError("values must be an agents x tasks matrix")
    if len(private_capacity) != n_a:
        raise ValueError("private_capacity needs one row per agent")
    n_r = len(private_need)
    if any(len(row) != n_r for row in private_capacity):
        raise ValueError("each private_capacity row needs one entry per private resource")
    flat = [values[a][t] for a in range(n_a) for t in range(n_t)]
    nvar = n_a * n_t
    rows: list[list[Number]] = []
    rhs: list[Number] = []
    for t in range(n_t):
        row: list[Number] = [0] * nvar
        for a in range(n_a):
            row[a * n_t + t] = 1
        rows.append(row)
        rhs.append(1)
    for a in range(n_a):
        for r in range(n_r):
            row = [0] * nvar
            for t in range(n_t):
                row[a * n_t + t] = private_need[r][t]
            rows.append(row)
            rhs.append(private_capacity[a][r])
    for p, cap in enumerate(public_capacity):
        rows.append([public_need[p][t] for _a in range(n_a) for t in range(n_t)])
        rhs.append(cap)
    res = solve_binary_program(flat, rows, rhs, time_limit)
    agent_of: list[int | None] = [None] * n_t
    for a in range(n_a):
        for t in range(n_t):
            if res.x[a * n_t + t]:
                agent_of[t] = a
    return Assignment(tuple(agent_of), res.objective, res.optimal)
