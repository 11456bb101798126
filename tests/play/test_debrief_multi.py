"""The debrief of a bargaining episode with three or more parties: the numbers by brute
force and against the results metrics, the table, the charts' data, and the terminal."""

from __future__ import annotations

import asyncio
import io
from itertools import product
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from accord.agents.human import Reply, Seat, Turn
from accord.agents.human.brief import num
from accord.agents.spec import AgentSpec
from accord.bench.optimality import bargaining_gaps
from accord.domains.bargaining import resolve_scenario
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.debrief import debrief
from accord.play.debrief_multi import best_for, possessive
from accord.play.terminal_brief import print_debrief

OFFER = {"features": "5", "tech_debt_share": "10%", "release": "week 2", "on_call": "shared"}
"""An agreement off the Pareto frontier of sprint-planning (value is left on the table)."""


class Offers(Seat):
    """A person who proposes ``OFFER`` and accepts whatever is on the table."""

    async def ask(self, turn: Turn) -> Reply:
        if "offer" in turn.legal:
            return {"kind": "offer", "package": OFFER}
        return {"kind": "accept"}


def run(agents: tuple[str, ...], seat: Seat | None = None) -> Any:
    spec = EpisodeSpec("bargaining", "sprint-planning", tuple(AgentSpec(a) for a in agents),
                       {}, 0)
    result = asyncio.run(get_domain("bargaining").run_episode(
        spec, RunContext(extra={"seat": seat} if seat else {})))
    return spec, result


def brute_force(u: np.ndarray, at: np.ndarray) -> tuple[float, np.ndarray | None]:
    """The value left on the table by definition: the largest joint gain over outcomes
    no worse for anyone (every outcome looked at, no frontier)."""
    better = [row for row in u if (row >= at - 1e-12).all()]
    best = max(better, key=lambda r: r.sum())
    gain = float(best.sum() - at.sum())
    return (gain, best) if gain > 1e-9 else (0.0, None)


def test_three_party_debrief_numbers_by_brute_force_and_the_results_metrics() -> None:
    spec, result = run(("human", "accept-all", "accept-all"), Offers())
    assert result.status == "agreement"
    d = debrief(spec, result, "product")
    assert d is not None and d["parties"] == ["product", "engineering", "operations"]
    sc = resolve_scenario("sprint-planning")
    names = list(sc.party_names)
    u = np.asarray(sc.utility_matrix)[:, [names.index(p) for p in d["parties"]]]
    at = np.asarray([result.record["utilities"][p] for p in d["parties"]])
    assert d["utilities"] == {p: pytest.approx(v) for p, v in zip(d["parties"], at, strict=True)}
    gain, better = brute_force(u, at)
    assert gain > 0.05  # this agreement leaves value on the table
    assert d["value_left"] == pytest.approx(gain)
    assert d["better"] == pytest.approx(list(better))
    # the same numbers as `accord results -m value_left,gap_pareto,gap_nash`
    gaps = bargaining_gaps(sc, result.record["utilities"])
    assert d["value_left"] == pytest.approx(gaps.values["value_left"])
    assert d["l2_to_pareto"] == pytest.approx(gaps.values["gap_pareto"])
    assert d["l2_to_nash"] == pytest.approx(gaps.values["gap_nash"])
    # the Nash point: the largest product of gains over BATNA, by brute force
    batna = np.asarray([d["batnas"][p] for p in d["parties"]])
    ir = u[(u >= batna).all(axis=1)]
    assert d["nash"] == pytest.approx(list(ir[np.argmax(np.prod(ir - batna, axis=1))]))
    # the best for the person that everyone else takes over BATNA, among Pareto outcomes
    pareto = [r for r in u if not any((o >= r).all() and (o > r).any() for o in u)]
    ok = [r for r in pareto if (r[1:] >= batna[1:]).all()]
    assert d["best"][0] == pytest.approx(max(r[0] for r in ok))


def test_three_party_debrief_table_sentences_and_chart_data() -> None:
    spec, result = run(("human", "accept-all", "accept-all"), Offers())
    d = debrief(spec, result, "product")  # the agreement OFFER, seen from product's side
    assert d is not None
    assert d["columns"] == ["party", "this episode", "BATNA", "margin", "Nash point",
                            "best for you"]
    rows = {r[0]: r for r in d["rows"]}
    assert set(rows) == {"you (product)", "engineering (revealed)", "operations (revealed)"}
    for p in d["parties"]:
        label = "you (product)" if p == "product" else f"{p} (revealed)"
        util, batna = d["utilities"][p], d["batnas"][p]
        assert rows[label][1] == f"{util:.3g}" and rows[label][2] == f"{batna:.3g}"
        assert float(rows[label][3]) == pytest.approx(util - batna, abs=5e-3)
    said = " ".join(d["sentences"])
    assert "You agreed: your utility" in said and "operations' " in said  # possessive
    assert f"Value left on the table: {num(d['value_left'])} in total" in said
    # two planes (product against each other party) and one parallel chart
    assert [(p["you"], p["other"]) for p in d["planes"]] == [("product", "engineering"),
                                                            ("product", "operations")]
    plane = d["planes"][1]
    assert plane["frontier_dots"] and plane["outcome"] == pytest.approx(
        [d["utilities"]["product"], d["utilities"]["operations"]])
    assert plane["disagreement"] == [d["batnas"]["product"], d["batnas"]["operations"]]
    par = d["parallel"]
    assert par["axes"] == d["parties"]
    assert [ln["key"] for ln in par["lines"]] == ["episode", "nash", "best"]
    assert par["lines"][0]["values"] == pytest.approx([d["utilities"][p] for p in d["parties"]])
    assert par["frontier"] and all(len(f) == 3 for f in par["frontier"])


def test_a_three_party_no_deal_is_debriefed_at_every_batna() -> None:
    spec, result = run(("hardliner",) * 3)
    assert result.status == "no_deal"
    d = debrief(spec, result, "operations")
    assert d is not None
    assert d["sentences"][0].startswith("No deal: your utility 0.3;")
    assert all(r[3] == "0" for r in d["rows"])  # no margin for anyone
    assert d["value_left"] == pytest.approx(
        bargaining_gaps(resolve_scenario("sprint-planning"), None).values["value_left"])
    assert "Everyone ended at or above" not in " ".join(d["sentences"])


def test_best_for_needs_every_other_party_over_its_batna() -> None:
    front = [[0.9, 0.1, 0.9], [0.7, 0.5, 0.5], [0.7, 0.6, 0.35], [0.2, 0.9, 0.9]]
    assert best_for(front, [0.0, 0.3, 0.3]) == [0.7, 0.5, 0.5]  # tie on 0.7: more for others
    assert best_for(front, [0.0, 0.0, 0.0]) == [0.9, 0.1, 0.9]
    assert best_for(front, [0.0, 0.95, 0.0]) is None
    assert possessive("operations") == "operations'" and possessive("product") == "product's"


def test_the_terminal_debrief_of_three_parties_is_a_table_in_sentences() -> None:
    spec, result = run(("human", "accept-all", "accept-all"), Offers())
    d = debrief(spec, result, "engineering")
    buf = io.StringIO()
    print_debrief(Console(file=buf, width=120), d)  # type: ignore[arg-type]
    out = buf.getvalue()
    assert "debrief: engineering" in out and "Value left on the table" in out
    assert "you (engineering)" in out and "product (revealed)" in out
    assert "margin" in out and "best for you" in out
    assert "Distance to the Pareto frontier" in out


@pytest.mark.parametrize("role", ["engineering", "product", "operations"])
def test_every_seat_sees_itself_first(role: str) -> None:
    spec, result = run(("human", "accept-all", "accept-all"), Offers())
    d = debrief(spec, result, role)
    assert d is not None and d["parties"][0] == role and d["rows"][0][0] == f"you ({role})"
    assert d["value_left"] == pytest.approx(debrief(spec, result, "product")["value_left"])


def test_all_outcomes_enumerated() -> None:
    """The scenario's utility matrix holds every package (the brute force above sees all)."""
    sc = resolve_scenario("sprint-planning")
    sizes = [len(i.values) for i in sc.space.issues]
    assert len(sc.utility_matrix) == len(list(product(*map(range, sizes))))
