"""Bargaining solution points over a utility matrix with disagreement (BATNA) values.

All points are chosen among individually rational outcomes (every party at or above
its BATNA) and are ``None`` when there are none. Ties are broken by higher total
utility, then by the lowest outcome index, so results are deterministic.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def individually_rational(utilities: np.ndarray, batna: npt.ArrayLike) -> np.ndarray:
    """Mask of outcomes where every party gets at least its BATNA."""
    ge = np.asarray(utilities) >= np.asarray(batna, dtype=np.float64)[None, :]
    return np.asarray(ge.all(axis=1))


def _argbest(score: np.ndarray, utilities: np.ndarray, mask: np.ndarray) -> int | None:
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return None
    s = score[idx]
    top = idx[s >= s.max() - 1e-12 * max(1.0, abs(float(s.max())))]
    if len(top) > 1:
        w = utilities[top].sum(axis=1)
        top = top[w >= w.max() - 1e-12]
    return int(top.min())


def nash_point(utilities: np.ndarray, batna: npt.ArrayLike) -> int | None:
    """Outcome maximising the product of gains over BATNA (Nash bargaining solution)."""
    u = np.asarray(utilities, dtype=np.float64)
    gains = u - np.asarray(batna, dtype=np.float64)[None, :]
    return _argbest(np.prod(gains, axis=1), u, individually_rational(u, batna))


def kalai_point(utilities: np.ndarray, batna: npt.ArrayLike) -> int | None:
    """Egalitarian (Kalai) point: maximises the smallest gain over BATNA."""
    u = np.asarray(utilities, dtype=np.float64)
    gains = u - np.asarray(batna, dtype=np.float64)[None, :]
    return _argbest(gains.min(axis=1), u, individually_rational(u, batna))


def kalai_smorodinsky_point(utilities: np.ndarray, batna: npt.ArrayLike) -> int | None:
    """Kalai-Smorodinsky point: maximises the smallest gain relative to each ideal gain.

    The ideal of a party is its best utility among individually rational outcomes; a
    party whose ideal equals its BATNA contributes ratio 1 (it cannot gain anything).
    """
    u = np.asarray(utilities, dtype=np.float64)
    d = np.asarray(batna, dtype=np.float64)
    ir = individually_rational(u, d)
    if not ir.any():
        return None
    span = u[ir].max(axis=0) - d
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(span > 0, (u - d[None, :]) / np.where(span > 0, span, 1.0), 1.0)
    return _argbest(ratio.min(axis=1), u, ir)


def max_welfare_point(utilities: np.ndarray, batna: npt.ArrayLike | None = None) -> int | None:
    """Outcome with the largest sum of utilities (among IR outcomes when ``batna`` is given)."""
    u = np.asarray(utilities, dtype=np.float64)
    mask = np.ones(len(u), dtype=bool) if batna is None else individually_rational(u, batna)
    return _argbest(u.sum(axis=1), u, mask)
