"""Pure metrics for Deal or No Deal (seed 003, sections 5.4-5.5).

Outcome metrics follow the paper's list: rounds, agreement, each side's score, Pareto
optimality, envy-freeness and the total. Estimation metrics (Tables 14-16) compare a
workflow agent's belief support ``V_est`` with the partner's true valuation and with the
indistinguishable set of Definition 12. Nothing here reads files or clocks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from accord.domains.deal_or_no_deal.load import ITEMS, Datapoint
from accord.domains.deal_or_no_deal.rules import (
    BestRule,
    best,
    best_allocations,
    datapoint_difficulty,
    is_envy_free,
    is_pareto_optimal,
    scores,
)
from accord.solvers.bayes import valuation_space

Vector = tuple[int, ...]
OUTCOME_KEYS: tuple[str, ...] = ("agreement", "alice", "bob", "pareto_optimal", "envy_free",
                                 "total")


def outcome_metrics(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int],
                    alice_share: Sequence[int] | None) -> dict[str, Any]:
    """Agreement, both scores, Pareto optimality, envy-freeness and total of one outcome.

    ``alice_share`` is ``None`` for no deal: both score 0 and the outcome is neither
    Pareto-optimal nor envy-free.
    """
    if alice_share is None:
        return {"agreement": False, "alice": 0, "bob": 0, "pareto_optimal": False,
                "envy_free": False, "total": 0}
    ua, ub = scores(counts, alice, bob, alice_share)
    return {"agreement": True, "alice": ua, "bob": ub,
            "pareto_optimal": is_pareto_optimal(counts, alice, bob, alice_share),
            "envy_free": is_envy_free(counts, alice, bob, alice_share), "total": ua + ub}


def human_metrics(dp: Datapoint) -> dict[str, Any]:
    """The humans' own outcome of a datapoint, plus ``rounds`` = ceil(utterances / 2)."""
    out = outcome_metrics(dp.counts, dp.alice, dp.bob, dp.outcome.alice)
    out["rounds"] = math.ceil(len(dp.turns) / 2)
    return out


def best_metrics(dp: Datapoint, rule: BestRule = "authors") -> dict[str, Any] | None:
    """Scores of the best allocation (envy-free, Pareto-optimal, largest total) or ``None``.

    ``rule`` picks among several best allocations (see :data:`~.rules.BEST_RULES`).
    """
    b = best(dp.counts, dp.alice, dp.bob, rule)
    return None if b is None else {"alice": b.alice, "bob": b.bob, "total": b.total}


def mean_of(rows: Sequence[Mapping[str, Any]], keys: Iterable[str]) -> dict[str, float | None]:
    """Per-key mean over rows (booleans count as 0/1; ``None`` values are skipped)."""
    out: dict[str, float | None] = {}
    for k in keys:
        vals = [float(r[k]) for r in rows if r.get(k) is not None]
        out[k] = fmean(vals) if vals else None
    return out


def human_baseline(points: Sequence[Datapoint]) -> dict[str, float | None]:
    """The human baseline: mean agreement, scores, PO, EF and total over ``points``."""
    return mean_of([human_metrics(d) for d in points], OUTCOME_KEYS)


def best_baseline(points: Sequence[Datapoint], rule: BestRule = "authors"
                  ) -> dict[str, float | None]:
    """Mean best scores over the datapoints that admit an envy-free allocation."""
    rows = [m for d in points if (m := best_metrics(d, rule)) is not None]
    return mean_of(rows, ("alice", "bob", "total"))


# -- per-difficulty tables (layout of Table 9) ----------------------------------------------
def difficulty_table(rows: Sequence[tuple[int, Mapping[str, Any]]], *,
                     cumulative: bool = True) -> list[dict[str, Any]]:
    """Rates by difficulty level from ``(difficulty, outcome metrics)`` pairs.

    One column per level present, hardest first. With ``cumulative`` (default, like the
    growing counts of Table 9) the column for level ``d`` covers every datapoint with
    ``Difficulty >= d`` (level ``d`` or harder); otherwise exactly level ``d``.
    """
    levels = sorted({d for d, _ in rows}, reverse=True)
    table: list[dict[str, Any]] = []
    for lvl in levels:
        sel = [m for d, m in rows if (d >= lvl if cumulative else d == lvl)]
        both = [bool(m["envy_free"]) and bool(m["pareto_optimal"]) for m in sel]
        table.append({
            "difficulty": lvl, "datapoints": len(sel),
            "agreement": fmean(bool(m["agreement"]) for m in sel),
            "envy_free": fmean(bool(m["envy_free"]) for m in sel),
            "pareto_optimal": fmean(bool(m["pareto_optimal"]) for m in sel),
            "envy_free_and_pareto_optimal": fmean(both),
        })
    return table


def human_difficulty_table(points: Sequence[Datapoint], *, cumulative: bool = True
                           ) -> list[dict[str, Any]]:
    """Table 9 for the humans' own outcomes."""
    return difficulty_table([(datapoint_difficulty(d), human_metrics(d)) for d in points],
                            cumulative=cumulative)


# -- valuation estimation (Tables 14-16) ---------------------------------------------------
def _profile(role: str, own: Vector, w: Vector) -> tuple[Vector, Vector]:
    return (own, w) if role == "alice" else (w, own)


def indistinguishable_set(counts: Sequence[int], own: Sequence[int], true_partner: Sequence[int],
                          role: str = "alice") -> set[Vector]:
    """Definition 12 seen by ``role``: partner valuations ``w`` with L*(w) a subset of L*(true).

    ``L*`` is the set of envy-free allocations with the largest total under the profile
    (own values, partner values). A ``w`` under which no allocation is envy-free has an
    empty ``L*``; it is left out, since believing it leads to no agreement at all rather
    than to the same one (the literal definition would count the empty set as a subset).
    """
    c, o = tuple(counts), tuple(own)
    total = sum(x * y for x, y in zip(c, o, strict=True))
    target = set(best_allocations(c, *_profile(role, o, tuple(true_partner))))
    out: set[Vector] = set()
    for w in valuation_space(c, total):
        got = best_allocations(c, *_profile(role, o, w))
        if got and set(got) <= target:
            out.add(w)
    return out


def estimation_metrics(support: Iterable[Sequence[int]], true_partner: Sequence[int],
                       prior_size: int, indistinguishable: set[Vector] | None = None
                       ) -> dict[str, float]:
    """Precision, recall and reduction of ``V_est`` (and w.r.t. the indistinguishable set).

    precision = 1[true in V_est]; recall = 1[true in V_est] / |V_est|;
    reduction = 1 - |V_est| / |V_prior|; precision_indist = 1[V_est meets I(v)];
    recall_indist = |V_est & I(v)| / |V_est|.
    """
    est = {tuple(int(x) for x in w) for w in support}
    hit = 1.0 if tuple(true_partner) in est else 0.0
    out = {"precision": hit, "recall": hit / len(est) if est else 0.0,
           "reduction": 1.0 - len(est) / prior_size if prior_size else 0.0}
    if indistinguishable is not None:
        common = len(est & indistinguishable)
        out["precision_indist"] = 1.0 if common else 0.0
        out["recall_indist"] = common / len(est) if est else 0.0
    return out


def support_at(trace: Sequence[Mapping[str, Any]], round_: int) -> list[list[int]] | None:
    """The last recorded support at or before ``round_`` (``None`` before the first record)."""
    got = None
    for rec in trace:
        if rec["round"] <= round_:
            got = rec["support"]
    return got


def estimation_by_round(episodes: Sequence[tuple[Sequence[Mapping[str, Any]], Vector]],
                        max_round: int | None = None) -> list[dict[str, float]]:
    """Table 15: mean precision, recall and reduction after each round.

    ``episodes`` pairs a belief trace with the partner's true valuation. For rounds past an
    episode's end its final support is used, as in the paper; before an agent's first
    record the prior (no reduction) is used.
    """
    if not episodes:
        return []
    last = max_round or max((rec["round"] for tr, _ in episodes for rec in tr), default=1)
    table: list[dict[str, float]] = []
    for rnd in range(1, last + 1):
        rows = []
        for trace, truth in episodes:
            if not trace:
                continue
            prior = int(trace[0]["prior"])
            sup = support_at(trace, rnd)
            if sup is None:
                rows.append({"precision": 1.0, "recall": 1.0 / prior, "reduction": 0.0})
            else:
                rows.append(estimation_metrics(sup, truth, prior))
        means = mean_of(rows, ("precision", "recall", "reduction"))
        table.append({"round": float(rnd), **{k: v or 0.0 for k, v in means.items()}})
    return table


# -- one episode ---------------------------------------------------------------------------
def _share(record: Mapping[str, Any], role: str) -> Vector | None:
    shares = record.get("shares")
    if not shares:
        return None
    items = record.get("items", ITEMS)
    return tuple(int(shares[role][i]) for i in items)


def episode_metrics(record: Mapping[str, Any], rounds: int) -> dict[str, Any]:
    """Per-episode metrics from a protocol record (see ``DondProtocol.result``).

    Adds ``best_total`` (``None`` without an envy-free allocation), ``difficulty`` and, for
    every role whose belief trace is in ``record["beliefs"]``, its final estimation metrics
    as ``<role>_precision`` etc.
    """
    counts = tuple(record["counts"])
    vals = {r: tuple(record["values"][r]) for r in ("alice", "bob")}
    out: dict[str, Any] = {"rounds": rounds}
    out.update(outcome_metrics(counts, vals["alice"], vals["bob"], _share(record, "alice")))
    b = best(counts, vals["alice"], vals["bob"])
    out["best_total"] = None if b is None else b.total
    out["difficulty"] = -sum(abs(a - c) for a, c in zip(vals["alice"], vals["bob"],
                                                        strict=True))
    for role, trace in (record.get("beliefs") or {}).items():
        if not trace:
            continue
        partner = "bob" if role == "alice" else "alice"
        indist = indistinguishable_set(counts, vals[role], vals[partner], role)
        est = estimation_metrics(trace[-1]["support"], vals[partner], int(trace[-1]["prior"]),
                                 indist)
        out.update({f"{role}_{k}": v for k, v in est.items()})
        out[f"{role}_belief_source"] = belief_source(trace)
        out[f"{role}_belief_unstated"] = sum(1 for rec in trace if rec.get("stated") is False)
    return out


def belief_source(trace: Sequence[Mapping[str, Any]]) -> str:
    """Who produced the supports of a belief trace: ``model`` (the seed mode of
    ``llm-workflow``: the model's own statements) or ``code`` (the code workflow and the
    assisted mode: :mod:`accord.solvers.bayes`)."""
    return "model" if any(rec.get("source") == "model" for rec in trace) else "code"


# -- many episodes -------------------------------------------------------------------------
SUMMARY_KEYS: tuple[str, ...] = ("rounds", "agreement", "alice", "bob", "pareto_optimal",
                                 "envy_free", "total", "best_total")
ESTIMATION_KEYS: tuple[str, ...] = ("precision", "recall", "reduction", "precision_indist",
                                    "recall_indist")


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means of the episode metrics (Tables 10-13) and of both sides' estimation (Tables 14, 16).

    ``estimation`` averages over every (episode, workflow role) pair, like Table 14 which
    reports "both agents"; it is ``None`` when no agent kept a belief.
    ``estimation_source`` says whose beliefs were scored (``model``: the seed mode's stated
    beliefs; ``code``: the exact computation; ``code+model`` for a mix) and
    ``belief_unstated`` counts the rounds in which a model's statement was unreadable.
    """
    out: dict[str, Any] = {"episodes": len(rows), **mean_of(rows, SUMMARY_KEYS)}
    est = [{k: r[f"{role}_{k}"] for k in ESTIMATION_KEYS if f"{role}_{k}" in r}
           for r in rows for role in ("alice", "bob") if f"{role}_precision" in r]
    out["estimation"] = mean_of(est, ESTIMATION_KEYS) if est else None
    sources = sorted({str(r[f"{role}_belief_source"]) for r in rows for role in ("alice", "bob")
                      if f"{role}_belief_source" in r})
    out["estimation_source"] = "+".join(sources) if sources else None
    out["belief_unstated"] = sum(int(r.get(f"{role}_belief_unstated", 0)) for r in rows
                                 for role in ("alice", "bob"))
    return out


def belief_traces(records: Iterable[Mapping[str, Any]]
                  ) -> list[tuple[Sequence[Mapping[str, Any]], Vector]]:
    """``(trace, partner's true values)`` for every workflow role in episode records."""
    out: list[tuple[Sequence[Mapping[str, Any]], Vector]] = []
    for rec in records:
        for role, trace in (rec.get("beliefs") or {}).items():
            partner = "bob" if role == "alice" else "alice"
            if trace:
                out.append((trace, tuple(rec["values"][partner])))
    return out
