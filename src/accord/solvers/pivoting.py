"""Exact integer pivoting on best-response polytopes, and the exact vertex walk.

For an integer payoff matrix ``P`` (rows: the player's own actions, columns: the opponent's
actions, entries: the *opponent's* payoffs), shifted to ``P' = P - min(P) + 1 >= 1``, the
best-response polytope is ``{x >= 0 : P'^T x <= 1}``. Its nonzero vertices, normalised to
sum 1, are exactly the mixed strategies pinned by a nonsingular support system (see
:mod:`accord.solvers.nash_mixed`): each comes with the set of its zero coordinates and the
set of opponent actions that are best replies to it (the tight constraints).

The polytope is bounded (``P' >= 1``). Each basis of ``P'^T x + s = 1`` is kept as an
integer tableau (Bareiss / "integer pivoting": every entry is a subdeterminant, each
division is exact), and the entering variable's leaving row is chosen by the
lexicographic ratio test over the rows of the basis inverse. That rule walks the vertices
of a symbolically perturbed, simple polytope whose graph is connected and each of whose
vertices maps onto a vertex of the real one, so a depth-first search over lexicographically
feasible bases visits every vertex even when the polytope is degenerate (a degenerate
vertex is reached through several bases and reported once). The search pivots forward
and back, so it holds one tableau and a stack of small records, never one tableau per
basis. Memory grows with the number of vertices found; ``max_bases`` turns an
over-large problem into :class:`MemoryBudgetError` instead of exhausting memory.

:mod:`accord.solvers.polytope` runs the same walk in floating point, level by level, and
comes back here for the bases whose float figures are not certain.
"""

from __future__ import annotations

from dataclasses import dataclass

from accord.solvers.budget import TimeBudget

Tableau = list[list[int]]


class MemoryBudgetError(MemoryError):
    """An equilibrium search would need more memory than the caller's budget allows."""


@dataclass(frozen=True, slots=True)
class Vertex:
    """A nonzero vertex, labelled; ``weights / total`` is the strategy when ``total > 0``.

    ``zeros`` is a bitmask over own actions (``x_i == 0``), ``replies`` one over opponent
    actions (best replies to the strategy: the tight constraints). A vertex found in
    floating point at a nondegenerate basis has ``total == 0``: its strategy is the unique
    solution of the system its labels pin, solved exactly when it is needed.
    """

    weights: tuple[int, ...]
    total: int
    zeros: int
    replies: int


def shifted(p: list[list[int]]) -> list[list[int]]:
    """``P - min(P) + 1``: the same best replies, every entry at least 1."""
    low = min(min(row) for row in p)
    return [[v - low + 1 for v in row] for row in p]


def initial_tableau(q: list[list[int]]) -> tuple[Tableau, list[int]]:
    """Tableau of ``Q^T x + s = 1`` with the slack basis (``x = 0``).

    Columns: ``x_0 .. x_{r-1}``, ``s_0 .. s_{c-1}``, right-hand side. Row ``t`` is the
    constraint of opponent action ``t``; ``basis[t]`` is the column basic in that row.
    """
    r, c = len(q), len(q[0])
    rows = []
    for t in range(c):
        row = [q[i][t] for i in range(r)] + [0] * c + [1]
        row[r + t] = 1
        rows.append(row)
    return rows, [r + t for t in range(c)]


def pivot(tab: Tableau, row: int, col: int, det: int) -> int:
    """Integer pivot on ``(row, col)`` in place; returns the new determinant."""
    prow = tab[row]
    piv = prow[col]
    for i, cur in enumerate(tab):
        if i == row:
            continue
        f = cur[col]
        if f == 0:
            tab[i] = [v * piv // det for v in cur]
        else:
            tab[i] = [(v * piv - f * w) // det for v, w in zip(cur, prow, strict=True)]
    return piv


def lex_leaving(tab: Tableau, col: int, lex_cols: range) -> int | None:
    """Row chosen by the lexicographic minimum-ratio test, ``None`` when unbounded.

    Compares ``(rhs, B^{-1} row) / tab[row][col]`` over rows with a positive entry; the
    rows of the basis inverse are independent, so the minimum is unique.
    """
    best: int | None = None
    for i, cur in enumerate(tab):
        a = cur[col]
        if a <= 0:
            continue
        if best is None:
            best = i
            continue
        b_row = tab[best]
        b = b_row[col]
        if cur[-1] * b != b_row[-1] * a:
            if cur[-1] * b < b_row[-1] * a:
                best = i
            continue
        for k in lex_cols:
            lhs, rhs = cur[k] * b, b_row[k] * a
            if lhs != rhs:
                if lhs < rhs:
                    best = i
                break
    return best


def _vertex(tab: Tableau, basis: list[int], r: int, c: int) -> Vertex | None:
    weights = [0] * r
    replies = (1 << c) - 1
    for row, var in enumerate(basis):
        v = tab[row][-1]
        if var < r:
            weights[var] = v
        elif v != 0:
            replies &= ~(1 << (var - r))  # a positive slack: not a best reply
    total = sum(weights)
    if total == 0:
        return None  # the origin: no strategy
    zeros = sum(1 << i for i, w in enumerate(weights) if w == 0)
    return Vertex(tuple(weights), total, zeros, replies)


#: pivots between two looks at the time budget
_CHECK_EVERY = 256


def exact_vertices(p: list[list[int]], max_bases: int | None = None) -> list[Vertex]:
    """Every nonzero vertex of the best-response polytope of ``p``, normalised, exact.

    ``p`` is ``r x c`` (own actions x opponent actions; the opponent's payoffs). Vertices
    come in discovery order. Raises :class:`MemoryBudgetError` once more than
    ``max_bases`` bases would be held.
    """
    return exact_vertices_within(p, max_bases)[0]


def exact_vertices_within(p: list[list[int]], max_bases: int | None = None,
                          budget: TimeBudget | None = None) -> tuple[list[Vertex], bool]:
    """:func:`exact_vertices` within a time budget: the vertices found and whether the
    walk finished (``False``: the budget ran out first and the list is partial)."""
    r, c = len(p), len(p[0])
    tab, basis = initial_tableau(shifted(p))
    lex_cols = range(r, r + c)
    det = 1
    in_basis = [False] * r + [True] * c
    mask = sum(1 << v for v in basis)
    seen_bases = {mask}
    found: dict[tuple[int, ...], Vertex] = {}
    # stack of (next column to try, row pivoted to get here, column that left there)
    stack: list[list[int]] = [[0, -1, -1]]
    cap = max_bases if max_bases is not None else -1
    steps = 0
    while stack:
        steps += 1
        if budget is not None and steps % _CHECK_EVERY == 1 and budget.exhausted():
            return list(found.values()), False
        frame = stack[-1]
        col = frame[0]
        while col < r + c and in_basis[col]:
            col += 1
        if col >= r + c:
            stack.pop()
            _, row, left = frame
            if row >= 0:  # pivot back to the parent basis
                mask ^= (1 << basis[row]) | (1 << left)
                in_basis[basis[row]] = False
                basis[row] = left
                in_basis[left] = True
                det = pivot(tab, row, left, det)
            continue
        frame[0] = col + 1
        leaving = lex_leaving(tab, col, lex_cols)
        if leaving is None:
            continue  # cannot happen for a bounded polytope; kept for safety
        row = leaving
        new = mask ^ (1 << basis[row]) ^ (1 << col)
        if new in seen_bases:
            continue
        seen_bases.add(new)
        if cap >= 0 and len(seen_bases) > cap:
            raise MemoryBudgetError(
                f"more than {cap:,} bases of the {r}x{c} best-response polytope")
        left = basis[row]
        mask = new
        det = pivot(tab, row, col, det)
        in_basis[left] = False
        in_basis[col] = True
        basis[row] = col
        vert = _vertex(tab, basis, r, c)
        if vert is not None:
            key = normalised(vert)
            found.setdefault(key, vert)
        stack.append([0, row, left])
    return list(found.values()), True


def basis_tableau(q: list[list[int]], basis: list[int]) -> tuple[Tableau, list[int], int]:
    """The integer tableau of ``basis`` (a set of columns) over the shifted matrix ``q``.

    Pivots each structural column of ``basis`` in from the slack basis; returns the
    tableau, the basic column of each row and the determinant (made positive).
    """
    tab, rows = initial_tableau(q)
    r = len(q)
    det = 1
    wanted = set(basis)
    for col in sorted(v for v in basis if v < r):
        row = next(i for i, v in enumerate(rows) if v not in wanted and tab[i][col] != 0)
        det = pivot(tab, row, col, det)
        rows[row] = col
    if det < 0:
        tab = [[-v for v in cur] for cur in tab]
        det = -det
    return tab, rows, det


def vertex_of(tab: Tableau, basis: list[int], r: int, c: int) -> Vertex | None:
    """The labelled vertex of a tableau (``None`` at the origin)."""
    return _vertex(tab, basis, r, c)


def normalised(v: Vertex) -> tuple[int, ...]:
    """A hashable exact key for the normalised vertex (weights over their gcd)."""
    from math import gcd

    g = 0
    for w in v.weights:
        g = gcd(g, w)
    return tuple(w // g for w in v.weights)
