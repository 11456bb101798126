"""The leaderboard's input read from columns (:mod:`accord.bench.leaderboard_scan`) equals
the row reader's (``collect`` over ``store.iter_episodes``): the same matches, scores,
domains, skip reasons and safety columns, on a real varied store in both formats."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench import BenchOptions, parse_config, run_bench
from accord.bench.leaderboard import collect, leaderboard
from accord.bench.leaderboard_scan import scan_matches, store_matches
from accord.bench.runscan import ScanError
from accord.bench.safety import SafetyTally
from accord.bench.store import Store, StoreError
from accord.cli.main import app

DOND = Path(__file__).resolve().parents[3] / "shared" / "data" / "dealornodeal"
#: every domain with a per-party score (bargaining with two and three parties, games,
#: task exchange, Deal-or-No-Deal when its data is here), deliberation (skipped: a shared
#: reward), self-play, random strategies for varied outcomes, an LLM agent (--by model)
SWEEPS: list[dict[str, object]] = [
    {"domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
     "agents": [["random", "conceder"], ["boulware", "random"],
                ["llm:mock/negotiator", "linear"], ["boulware", "boulware"]],
     "params": {"max_rounds": [4, 30]}},
    {"domain": "bargaining", "scenarios": ["sprint-planning"],
     "agents": [["random", "conceder", "boulware"]]},
    {"domain": "games", "scenarios": ["prisoners-dilemma", "stag-hunt"],
     "agents": [["rational", "random"], ["random", "rational"]]},
    {"domain": "task-exchange", "scenarios": ["competitive"],
     "agents": [["utility-aware", "selfish"], ["selfish", "utility-aware"]]},
    {"domain": "deliberation", "scenarios": ["menu-numeric"], "agents": [["share", "share"]]},
]


@pytest.fixture(scope="module")
def varied_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bench run over every scored domain, then (as a crash or a stopped run leaves
    them) one episode failed, one pending, one ended in an error, and one finished
    episode's metrics with a missing value."""
    sweeps = list(SWEEPS)
    if (DOND / "test.txt").is_file():
        sweeps.append({"domain": "deal-or-no-deal", "scenarios": ["test/0", "test/1"],
                       "agents": [["greedy", "workflow"], ["workflow", "greedy"]]})
    path = tmp_path_factory.mktemp("lbscan") / "varied.db"
    run_bench(parse_config({"name": "varied", "seeds": 2, "sweeps": sweeps}, "<test>"),
              BenchOptions(store=str(path), quiet=True,
                           data=str(DOND) if DOND.is_dir() else None))
    with Store.open(path) as st:
        rows = st.episodes("varied")
        with st.conn:
            st.conn.execute("UPDATE episodes SET status='failed', outcome=NULL, metrics=NULL "
                            "WHERE run='varied' AND seq=3")
            st.conn.execute("UPDATE episodes SET status='pending', outcome=NULL, summary=NULL,"
                            " metrics=NULL WHERE run='varied' AND seq=7")
            st.conn.execute("UPDATE episodes SET outcome='error' WHERE run='varied' AND seq=9")
            odd = {**(rows[10].metrics or {}), "gain_buyer": None}
            st.conn.execute("UPDATE episodes SET metrics=? WHERE run='varied' AND seq=10",
                            (st._pack(json.dumps(odd)),))
    return path


def _format_1(src: Path, dst: Path) -> Path:
    """A copy of ``src`` with every bulky column as JSON text (a store written before the
    compact format)."""
    dst.write_bytes(src.read_bytes())
    with Store.open(dst) as st:
        rows = st.episodes()
        with st.conn:
            for r in rows:
                st.conn.execute(
                    "UPDATE episodes SET summary=?, metrics=? WHERE run=? AND id=?",
                    (None if r.summary is None else json.dumps(r.summary),
                     None if r.metrics is None else json.dumps(r.metrics), r.run, r.id))
        kinds = {t for (t,) in st.conn.execute("SELECT DISTINCT typeof(metrics) FROM episodes")}
        assert kinds == {"text", "null"}
    return dst


def _both(path: Path, by: str, safety: bool, run: str | None = None
          ) -> tuple[tuple[object, ...], tuple[object, ...]]:
    with Store.open_readonly(path) as st:
        fast_tally, slow_tally = (SafetyTally(), SafetyTally()) if safety else (None, None)
        fast = scan_matches(st, run, by, fast_tally)
        slow = collect(st.iter_episodes(run, summaries=safety), by, slow_tally)
    return (*fast, fast_tally), (*slow, slow_tally)


@pytest.mark.parametrize("fmt", [2, 1])
@pytest.mark.parametrize("by", ["agent", "model", "agent0"])
@pytest.mark.parametrize("safety", [False, True])
def test_columns_equal_rows_on_a_varied_store(tmp_path, varied_store, fmt, by, safety):
    path = varied_store if fmt == 2 else _format_1(varied_store, tmp_path / "old.db")
    fast, slow = _both(path, by, safety)
    assert fast == slow
    matches, domains, skipped, tally = fast
    # what makes the comparison worth something: every scored domain rated, two- and
    # three-seat matches, draws and agreements, every kind of skip
    want = {"bargaining", "games", "task-exchange"} | (
        {"deal-or-no-deal"} if (DOND / "test.txt").is_file() else set())
    assert set(domains) == want
    assert {len(m.seats) for m in matches} == {2, 3}
    assert {m.agreed for m in matches} >= {True, False, None}
    assert any(m.seats[0].score == m.seats[1].score for m in matches)
    reasons = " | ".join(skipped)
    for why in ("not finished (failed)", "not finished (pending)", "ended in an error",
                "shared by every agent"):
        assert why in reasons
    if by != "agent0":
        assert "self-play" in reasons
    if safety:
        assert tally.sums and any("value_left" in s for s in tally.sums.values())


def test_one_run_and_the_board_built_from_it(varied_store):
    fast, slow = _both(varied_store, "agent", False, run="varied")
    assert fast == slow
    boards = [leaderboard(m, "elo", 20, 3, domains=d, skipped=s).to_dict()
              for m, d, s, _ in (fast, slow)]
    assert boards[0] == boards[1]


def test_the_row_readers_party_order_with_and_without_summaries(tmp_path):
    """Without summaries the parties come from the metrics' ``u_`` keys; with them (the
    safety columns) from the record: a record naming them in another order swaps the
    scores, and the column scan follows the row reader both ways."""
    from accord.testing.ratings import synthetic_tournament

    db = tmp_path / "t.db"
    synthetic_tournament(db, {"a": 1.0, "b": 0.0}, 20, seed=2)
    with Store.open(db) as st, st.conn:
        for r in st.episodes():
            summ = {**(r.summary or {}), "record": {"parties": ["seller", "buyer"]}}
            st.conn.execute("UPDATE episodes SET summary=? WHERE id=?",
                            (st._pack(json.dumps(summ)), r.id))
    plain_fast, plain_slow = _both(db, "agent", False)
    safe_fast, safe_slow = _both(db, "agent", True)
    assert plain_fast == plain_slow and safe_fast == safe_slow
    swapped = [tuple(s.score for s in m.seats) for m in safe_fast[0]]
    assert swapped == [tuple(s.score for s in reversed(m.seats)) for m in plain_fast[0]]


def _damage(src: Path, dst: Path, column: str, value: object) -> str:
    dst.write_bytes(src.read_bytes())
    con = sqlite3.connect(dst)
    with con:
        eid = con.execute("SELECT id FROM episodes WHERE run='varied' AND seq=5").fetchone()[0]
        con.execute(f"UPDATE episodes SET {column}=? WHERE run='varied' AND seq=5", (value,))
    con.close()
    return str(eid)


@pytest.mark.parametrize(("column", "value", "safety"), [
    ("metrics", b"\x28\xb5\x2f\xfd damaged", False),
    ("metrics", '{"u_buyer": 0.5,', False),
    ("summary", b"\x28\xb5\x2f\xfd damaged", True),
    ("spec", "{not json", False),
])
def test_a_damaged_value_falls_back_to_the_row_reader_that_names_it(
        tmp_path, varied_store, column, value, safety):
    bad = tmp_path / "bad.db"
    eid = _damage(varied_store, bad, column, value)
    with Store.open_readonly(bad) as st:
        with pytest.raises(ScanError):
            scan_matches(st, None, "agent", SafetyTally() if safety else None)
        with pytest.raises(StoreError, match=eid):
            store_matches(st, None, "agent", SafetyTally() if safety else None)
    res = CliRunner().invoke(app, ["leaderboard", str(bad), "--bootstrap", "0", "--json",
                                   *(["--safety"] if safety else [])])
    assert res.exit_code != 0 and eid in res.output


def test_a_damaged_summary_is_not_read_without_safety(tmp_path, varied_store):
    """The ratings do not need summaries: a damaged one stops only ``--safety``."""
    bad = tmp_path / "bad.db"
    _damage(varied_store, bad, "summary", b"\x28\xb5\x2f\xfd damaged")
    with Store.open_readonly(bad) as st, Store.open_readonly(varied_store) as good:
        assert scan_matches(st) == scan_matches(good)


def test_the_safety_tally_is_restored_before_the_fallback(tmp_path, varied_store):
    """A summary Python reads but SQLite does not (a NaN, which ``json.dumps`` writes) in
    the last finished episode stops the scan after it tallied the others; the row reader
    then reads the store, and the caller's tally holds each episode once."""
    bad = tmp_path / "nan.db"
    bad.write_bytes(varied_store.read_bytes())
    with Store.open(bad) as st:
        last = [r for r in st.episodes() if r.status == "done"][-1]
        with st.conn:
            st.conn.execute("UPDATE episodes SET summary=? WHERE run=? AND id=?",
                            (st._pack(json.dumps({**(last.summary or {}),
                                                  "odd": float("nan")})), last.run, last.id))
    with Store.open_readonly(bad) as st:
        with pytest.raises(ScanError):
            scan_matches(st, None, "agent", SafetyTally())
        fast_tally, slow_tally = SafetyTally(), SafetyTally()
        fast = store_matches(st, None, "agent", fast_tally)
        slow = collect(st.iter_episodes(summaries=True), "agent", slow_tally)
    assert fast == slow and fast_tally == slow_tally and slow_tally.sums


def test_cli_reads_several_stores_as_one(tmp_path, varied_store):
    old = _format_1(varied_store, tmp_path / "old.db")
    res = CliRunner().invoke(app, ["leaderboard", str(varied_store), str(old), "--bootstrap",
                                   "5", "--json", "--method", "glicko2"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    with Store.open_readonly(varied_store) as a, Store.open_readonly(old) as b:
        rows = [*a.iter_episodes(summaries=False), *b.iter_episodes(summaries=False)]
    m, d, s = collect(rows)
    want = json.loads(json.dumps(leaderboard(m, "glicko2", 5, 0, "agent", d, s).to_dict()))
    assert got == want
