"""Bradley–Terry ratings by maximum likelihood and their bootstrap: the point fit with
scipy's trust-region Newton, the resamples with one batched Newton over multinomial
draws of the distinct episode patterns (see docs/leaderboard.md). Pure functions.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

from accord.bench.ratings import Pairs, win_matrix


def _sig(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def bt_fit(win: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bradley–Terry log-strengths by maximum likelihood (scipy's trust-region Newton,
    exact gradient and Hessian) from a win matrix
    (draws as half wins). Each player also has one virtual draw against a virtual player
    of strength 0: it keeps the estimate finite when a player won (or lost) every match
    and barely moves it otherwise. Returned centred on mean 0."""
    from scipy.optimize import minimize

    p = win.shape[0]
    if p == 0:
        return np.zeros(0)

    n = win + win.T

    def loss(th: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        d = th[None, :] - th[:, None]  # d[a, b] = th_b - th_a
        nll = float(np.sum(win * np.logaddexp(0.0, d)))
        nll += float(np.sum(0.5 * np.logaddexp(0.0, -th) + 0.5 * np.logaddexp(0.0, th)))
        ws = win * _sig(d)
        grad = -ws.sum(axis=1) + ws.sum(axis=0) + _sig(th) - 0.5
        return nll, grad

    def hess(th: NDArray[np.float64]) -> NDArray[np.float64]:
        d = th[None, :] - th[:, None]
        pq = n * _sig(d) * _sig(-d)
        h: NDArray[np.float64] = -pq
        h[np.diag_indices(p)] = pq.sum(axis=1) + _sig(th) * _sig(-th)
        return h

    res = minimize(loss, np.zeros(p), jac=True, hess=hess, method="trust-exact",
                   options={"gtol": 1e-10})
    th: NDArray[np.float64] = np.asarray(res.x, dtype=np.float64)
    return th - th.mean()


def bt_fit_many(wins: NDArray[np.float64], tol: float = 1e-10, max_iter: int = 100
                ) -> NDArray[np.float64]:
    """:func:`bt_fit` of a stack of win matrices ``(B, P, P)`` at once: Newton's method on
    the same (strictly convex) objective, every resample advanced together with batched
    linear solves (steps capped at 2 units per iteration). Rows centred on mean 0."""
    b, p, _ = wins.shape
    th = np.zeros((b, p))
    if p == 0 or b == 0:
        return th
    n = wins + np.swapaxes(wins, 1, 2)
    for _ in range(max_iter):
        d = th[:, None, :] - th[:, :, None]  # d[k, a, b] = th_b - th_a
        ws = wins * _sig(d)
        sig = _sig(th)
        grad = -ws.sum(axis=2) + ws.sum(axis=1) + sig - 0.5
        pq = n * _sig(d) * _sig(-d)
        hess = -pq
        idx = np.arange(p)
        hess[:, idx, idx] = pq.sum(axis=2) + sig * (1.0 - sig)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))
        th -= step
        if float(np.abs(step).max()) < tol:
            break
    out: NDArray[np.float64] = th - th.mean(axis=1, keepdims=True)
    return out


def _episode_patterns(pairs: Pairs) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Episodes grouped by what they contribute to the win matrix: ``(counts, W)`` with
    ``W[k]`` the flattened win matrix of pattern ``k`` and ``counts[k]`` its episodes."""
    p = len(pairs.players)
    cells = p * p
    # each pair adds result to W[i, j] and 1 - result to W[j, i]: encode per episode
    code = (pairs.i * p + pairs.j) * 3 + (pairs.result * 2).astype(np.int64)
    if pairs.episodes == 0 or len(code) == 0:
        return np.zeros(0), np.zeros((0, cells))
    order = np.argsort(pairs.episode, kind="stable")
    ep, code = pairs.episode[order], code[order]
    starts = np.flatnonzero(np.r_[True, ep[1:] != ep[:-1]])
    keys: dict[tuple[int, ...], int] = {}
    counts: list[int] = []
    if len(starts) == len(ep):  # one pair per episode: vectorised
        uniq, inv = np.unique(code, return_inverse=True)
        counts_arr = np.bincount(inv).astype(np.float64)
        mats = np.zeros((len(uniq), cells))
        _fill(mats, np.arange(len(uniq)), uniq, p)
        return counts_arr, mats
    bounds = [*starts.tolist(), len(ep)]
    rows: list[list[int]] = []
    for s, e in itertools.pairwise(bounds):
        key = tuple(sorted(code[s:e].tolist()))
        k = keys.setdefault(key, len(keys))
        if k == len(counts):
            counts.append(0)
            rows.append(list(key))
        counts[k] += 1
    mats = np.zeros((len(rows), cells))
    for k, row in enumerate(rows):
        _fill(mats, np.full(len(row), k), np.asarray(row, dtype=np.int64), p)
    return np.asarray(counts, dtype=np.float64), mats


def _fill(mats: NDArray[np.float64], k: NDArray[np.int64], code: NDArray[np.int64],
          p: int) -> None:
    cell, r2 = np.divmod(code, 3)
    i, j = np.divmod(cell, p)
    r = r2 / 2.0
    np.add.at(mats, (k, i * p + j), r)
    np.add.at(mats, (k, j * p + i), 1.0 - r)


def bradley_terry(pairs: Pairs, boot: int, rng: np.random.Generator
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bradley–Terry point estimate and ``boot`` bootstrap fits. Resampling episodes with
    replacement is a multinomial draw over the distinct episode patterns (the same
    distribution, without materialising 10^5 indices per resample)."""
    p = len(pairs.players)
    point = bt_fit(win_matrix(pairs))
    counts, mats = _episode_patterns(pairs)
    boots = np.zeros((boot, p))
    if boot and len(counts):
        draws = rng.multinomial(pairs.episodes, counts / counts.sum(), size=boot)
        boots = bt_fit_many((draws @ mats).reshape(boot, p, p))
    return point, boots


__all__ = ["bradley_terry", "bt_fit", "bt_fit_many"]
