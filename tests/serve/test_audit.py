"""What a person reads about an episode: the summary card, the deal audit and the record
in words (accord.serve.audit), checked against values known by other routes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accord.bench.store import EpisodeRow, Store
from accord.serve import audit


def _rows(path: Path, run: str) -> list[EpisodeRow]:
    st = Store.open_readonly(path)
    try:
        return st.episodes(run)
    finally:
        st.conn.close()


def _best_ir_welfare(name: str) -> float:
    """Brute force over every outcome: the best joint utility above every BATNA."""
    from accord.domains.bargaining.catalog import resolve_scenario

    sc = resolve_scenario(name)
    u = np.round(sc.utility_matrix, 12)
    ok = (u >= np.asarray(sc.batnas)[None, :] - 1e-12).all(axis=1)
    return float(u[ok].sum(axis=1).max())


def _best_improvement(name: str, at: list[float]) -> float:
    """Brute force over every outcome: the largest joint gain of an outcome at least as
    good for every party as ``at`` (the value left on the table)."""
    from accord.domains.bargaining.catalog import resolve_scenario

    u = np.round(resolve_scenario(name).utility_matrix, 12)
    ok = (u >= np.asarray(at)[None, :] - 1e-9).all(axis=1)
    return max(0.0, float(u[ok].sum(axis=1).max()) - sum(at)) if ok.any() else 0.0


def test_optimality_agrees_with_the_episode_metrics_and_brute_force(gated_store: Path) -> None:
    for row in _rows(gated_store, "gated"):
        opt = audit.optimality(row)
        assert opt is not None
        assert opt["pareto"] == pytest.approx(row.metrics["l2_to_pareto"], abs=1e-9)
        assert opt["nash"] == pytest.approx(row.metrics["l2_to_nash"], abs=1e-9)
        # value left on the table used to be the best individually rational welfare minus
        # the deal's (a frontier deal favouring one side "left" value); it is now the
        # largest joint gain of an outcome at least as good for both (issue 27 item 2:
        # one definition, accord.bench.optimality), 0 on the frontier
        at = [row.summary["record"]["utilities"][p] for p in row.summary["record"]["parties"]]
        assert opt["left_on_table"] == pytest.approx(
            _best_improvement(row.spec["scenario"], at), abs=1e-9)
        if opt["pareto"] == 0:
            assert opt["left_on_table"] == 0


def test_utilities_against_batna_and_the_decisions(gated_store: Path) -> None:
    row = _rows(gated_store, "gated")[0]
    rec = row.summary["record"]
    utils = audit.utilities(row)
    assert [u["party"] for u in utils] == rec["parties"]
    for u in utils:
        assert u["utility"] == rec["utilities"][u["party"]]
        assert u["batna"] == rec["batna"][u["party"]]
        assert u["margin"] == pytest.approx(u["utility"] - u["batna"])
    assert [u["agent"] for u in utils] == row.spec["agents"]
    said = audit.decisions(row, {"state": "pending"})
    assert said[0] == f"{rec['proposer']} put these terms on the table in round {rec['round']}."
    assert said[1] == f"{rec['accepted_by'][0]} accepted them."
    assert "awaits a person's approval" in said[2]
    assert audit.terms(row) == rec["agreement"]


def test_a_stagnation_no_deal_reads_as_the_buyer_walking(stagnation_store: Path) -> None:
    row = next(r for r in _rows(stagnation_store, "stag") if r.outcome == "no_deal")
    assert row.summary["reason"] == "stagnation" and row.summary["who"] == "buyer"
    assert row.metrics["walk"] is False  # the metric counts walk moves only ...
    # ... so it is not shown as "walk: no"; the ending says who walked and why
    assert audit.ending(row).startswith("buyer walked away when the stagnation rule fired")
    labels = [k for k, _ in audit.metric_rows(row)]
    assert "walk" not in labels and "stagnation" not in labels
    flags = {f["name"]: f for f in audit.flags(row)}
    assert flags["stagnation"]["raised"] and flags["stagnation"]["who"] == ["buyer"]
    assert not flags["sycophancy"]["raised"] and not flags["utility_leak"]["raised"]
    opt = audit.optimality(row)
    # a no-deal sits at the disagreement point (every BATNA): its distances are measured
    # from there now, as accord results and the debrief measure them (they were "-")
    assert opt is not None and opt["pareto"] > 0 and opt["nash"] > 0
    batnas = sum(row.summary["record"]["batna"].values())
    assert opt["left_on_table"] == pytest.approx(_best_ir_welfare("buyer-seller") - batnas)
    titles = [s["title"] for s in audit.record_sections(row)]
    assert titles[:2] == ["How it ended", "Last offers on the table"]


def _made(spec: dict, summary: dict, metrics: dict, outcome: str = "agreement") -> EpisodeRow:
    return EpisodeRow("r", "id", 0, spec, {}, "done", outcome, summary, metrics, None,
                      None, None, 1, None)


def test_no_figures_for_a_scenario_file_or_an_unknown_outcome() -> None:
    summary = {"status": "agreement", "record": {"utilities": {"a": 1.0, "b": 1.0}}}
    met = {"u_a": 1.0, "u_b": 1.0}
    assert audit.optimality(_made({"domain": "bargaining", "scenario": "/etc/passwd"},
                                 summary, met)) is None
    assert audit.optimality(_made({"domain": "task-exchange", "scenario": "/x/s.yaml"},
                                 summary, met)) is None
    # a game whose record does not hold the game: nothing to measure against
    assert audit.optimality(_made({"domain": "games", "scenario": "pd"}, summary,
                                 {"payoff_1": 1, "payoff_2": 1}, "completed")) is None


def test_a_game_gets_its_own_gap_beside_the_value_left() -> None:
    import yaml

    import accord

    game = yaml.safe_load((Path(accord.__file__).parent / "domains" / "games" / "data"
                           / "games" / "prisoners-dilemma.yaml").read_text())
    row = _made({"domain": "games", "scenario": "prisoners-dilemma"},
               {"status": "completed", "record": {"completed": True, "spec": game}},
               {"payoff_1": 1, "payoff_2": 1}, "completed")
    opt = audit.optimality(row)
    assert opt is not None and opt["unit"] == "payoff"
    assert opt["left_on_table"] == 4.0  # mutual defection (1, 1); cooperation gives (3, 3)
    assert opt["gap"] == 0.0 and "Pareto-optimal equilibrium" in opt["gap_text"]
    assert opt["pareto"] is None and opt["nash"] is None


def test_episode_page_card_and_sections_over_http(make_client, stagnation_store: Path) -> None:
    c = make_client(stagnation_store)
    rows = _rows(stagnation_store, "stag")
    nodeal = next(r for r in rows if r.outcome == "no_deal")
    page = c.get(f"/episodes/{nodeal.id}").text
    card = page.index('id="summary"')
    assert card < page.index('class="plot"') < page.index('<table class="transcript">')
    assert "buyer walked away when the stagnation rule fired" in page
    assert "<th>walk</th>" not in page and "walk False" not in page
    assert "<caption>Last offers on the table</caption>" in page
    # the stagnation rows in words: no snake_case names, no unrounded floats
    table = page[page.index('<table class="transcript">'):]
    table = table[:table.index("</table>")]
    assert "<td>stagnation walk</td>" in table and "stagnation_walk" not in table
    assert "last_move=0.00," in table  # two decimals, the rule of every person-facing table
    assert "notes: stagnation × 1, stagnation walk × 1" in page
    # the card's distances of a no-deal say where they are measured from (the metrics
    # table leaves them empty: a reader saw 0.321 above and "-" below, unexplained)
    assert "measured from the BATNAs: no deal was reached" in page
    deal = next(r for r in rows if r.outcome == "agreement")
    page = c.get(f"/episodes/{deal.id}").text
    assert "buyer accepted seller&#39;s offer in round" in page
    assert "value left on the table" in page and "distance to the Pareto frontier" in page
    assert "measured from the BATNAs" not in page
    doc = c.get(f"/api/episodes/{deal.id}").json()
    assert doc["card"]["optimality"]["pareto"] == pytest.approx(deal.metrics["l2_to_pareto"])


def _row(**kw: object) -> EpisodeRow:
    base: dict = {"run": "r", "id": "x", "seq": 0, "spec": {"domain": "bargaining",
                  "scenario": "buyer-seller", "agents": ["llm:a", "boulware"]},
                  "labels": {}, "status": "done", "outcome": "agreement", "summary": None,
                  "metrics": None, "usage": None, "error": None, "wall_time": 1.5,
                  "attempts": 1, "finished": None}
    base.update(kw)
    return EpisodeRow(**base)  # type: ignore[arg-type]


def test_cost_sums_every_role_and_says_unknown_when_unpriced() -> None:
    row = _row(usage={"buyer": {"prompt_tokens": 100, "completion_tokens": 20,
                                "cost": 0.0125},
                      "judge": {"prompt_tokens": 5, "completion_tokens": 1, "cost": None}})
    assert audit.cost(row) == {"tokens": 126, "cost": 0.0125, "wall_time": 1.5}
    assert audit.cost(_row()) == {"tokens": None, "cost": None, "wall_time": 1.5}


def test_unfinished_and_failed_episodes_say_so() -> None:
    assert audit.ending(_row(status="pending", outcome=None)) == "Not finished (pending)."
    failed = _row(status="failed", outcome=None, error="boom")
    assert "failed before it ended" in audit.ending(failed)
    card = audit.card(failed)
    assert card["outcome"] == "Failed" and card["terms"] is None
    assert card["optimality"] is None and card["utilities"] == []


def test_an_error_card_says_why(make_client, tmp_path: Path, gated_store: Path) -> None:
    """The summary card of an episode that ended in an error or failed said only "an
    agent failed"; the reason (a model's context too small, an exception) sat 1,000 px
    lower in the transcript. Now the card says it, cut at 500 characters."""
    import sqlite3

    path = tmp_path / "err.db"
    path.write_bytes(gated_store.read_bytes())
    ids = [r.id for r in _rows(path, "gated")]
    why = "RuntimeError: LLM call failed for buyer: ContextOverflowError: " + "x" * 600
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE episodes SET status='failed', outcome=NULL, error=? WHERE id=?",
                     ("RuntimeError: boom", ids[0]))
        conn.execute("UPDATE episodes SET outcome='error', error=? WHERE id=?", (why, ids[1]))
    c = make_client(path)
    def card(eid: str) -> str:
        page = c.get(f"/episodes/{eid}").text
        at = page.index('id="summary"')
        return page[at:page.index("</section>", at)]

    for eid, text in ((ids[0], "RuntimeError: boom"), (ids[1], why[:400])):
        assert 'id="why"' in card(eid) and text in card(eid), eid
    assert why not in card(ids[1])  # cut, not the whole 660 characters
    page = c.get(f"/episodes/{ids[2]}").text
    assert 'id="why"' not in page  # an agreement has nothing to explain
