"""NegotiationArena: buy-sell and trading games as bargaining scenarios, and game_state.json
logs as read-only episodes of a store (shown, served and measured like run episodes)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from formatslib import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nalib import buysell_log, goal, trading_log, write_log
from typer.testing import CliRunner

from accord.bench.store import Store
from accord.cli.main import app
from accord.domains.bargaining import resolve_scenario
from accord.domains.bargaining.load import parse_scenario
from accord.formats import FormatError, import_path
from accord.formats.negotiationarena_log import RUN_NAME, import_logs, prepare_log

EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))


def test_buysell_is_a_price_issue_whose_gains_are_the_game_outcome(tmp_path: Path) -> None:
    write_log(tmp_path / "g", buysell_log([50, "ACCEPT"], cost=40, wtp=60, budget=100))
    imp = import_path("negotiationarena", str(tmp_path / "g"))
    sc = parse_scenario(imp.data, "t")
    assert sc.party_names == ("RED", "BLUE")
    assert sc.space.issue("price").values == tuple(range(101))
    red, blue = sc.parties
    for p in range(101):  # utility minus BATNA, times the buyer's money, is the game's score
        assert (red.utility({"price": p}) - red.batna) * 100 == pytest.approx(p - 40)
        assert (blue.utility({"price": p}) - blue.batna) * 100 == pytest.approx(60 - p)
    _, nash = brute_force({"price": list(range(101))},
                               [red.utility, blue.utility], [red.batna, blue.batna])
    assert sc.nash_index is not None
    assert sc.space.package(sc.nash_index) == {"price": 50}  # the midpoint of c and w
    assert nash == pytest.approx(0.1 * 0.1)


def test_trading_goals_become_allocation_utilities(tmp_path: Path) -> None:
    write_log(tmp_path / "t", trading_log([]))
    sc = resolve_scenario(f"negotiationarena:{tmp_path / 't'}")
    assert sc.space.names == ("X", "Y") and sc.space.size == 31 * 31
    red, blue = sc.parties
    assert red.batna == 0.0 and blue.batna == 0.0  # neither holds 15 X and 15 Y at start
    assert red.utility({"X": 15, "Y": 15}) == 1.0 and blue.utility({"X": 15, "Y": 15}) == 1.0
    assert red.utility({"X": 25, "Y": 5}) == 0.0
    assert blue.utility({"X": 14, "Y": 15}) == 1.0 and red.utility({"X": 14, "Y": 15}) == 0.0
    # a maximisation goal: units held, every resource alike
    write_log(tmp_path / "m", trading_log([], goals=(
        goal("maximisation_goal", {"_type": "resource", "_value": {"X": 25, "Y": 5}}),
        goal("resource_goal", {"X": 1}))))
    sc = resolve_scenario(f"negotiationarena:{tmp_path / 'm'}")
    assert sc.parties[0].batna == 30.0
    assert sc.parties[0].utility({"X": 10, "Y": 7}) == 17.0


def test_import_writes_a_scenario_file_and_run_and_analyze_accept_the_target(
        tmp_path: Path) -> None:
    write_log(tmp_path / "g", buysell_log([50, "ACCEPT"]))
    runner = CliRunner()
    res = runner.invoke(app, ["import", "negotiationarena", str(tmp_path / "g"), "--out",
                              str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    written = Path(json.loads(res.output)["written"])
    assert yaml.safe_load(written.read_text(encoding="utf-8"))["issues"]["price"][-1] == 1000
    run = runner.invoke(app, ["run", f"negotiationarena:{tmp_path / 'g'}", "--agents",
                              "boulware,conceder", "--json"])
    assert run.exit_code == 0, run.output
    out = json.loads(run.output[run.output.index("{"):])
    assert out["status"] == "agreement"
    assert 40 <= out["agreement"]["price"] <= 60  # inside both BATNAs
    ana = runner.invoke(app, ["analyze", f"negotiationarena:{tmp_path / 'g'}", "--json"])
    assert ana.exit_code == 0, ana.output


def _episodes(store: Path) -> list[Any]:
    with Store.open_readonly(store) as st:
        return st.episodes(RUN_NAME)


def test_logs_become_read_only_episodes_with_the_games_numbers(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_log(logs / "a", buysell_log([50, 30, 45, 38, 42, "ACCEPT"]))
    write_log(logs / "b", buysell_log([70, 30, "REJECT"]))
    write_log(logs / "c", buysell_log([55, 35, 50], end=False))  # cut short: no answer
    store = tmp_path / "na.db"
    runner = CliRunner()
    res = runner.invoke(app, ["import", "negotiationarena-log", str(logs), "--out",
                              str(store), "--json"])
    assert res.exit_code == 0, res.output
    got = {Path(e["source"]).parent.name: e for e in json.loads(res.output)["episodes"]}
    a, b, c = got["a"], got["b"], got["c"]
    assert a["status"] == "agreement" and a["agreement"] == {"price": 42}
    assert a["metrics"]["surplus_RED"] == 2 and a["metrics"]["surplus_BLUE"] == 18
    assert a["metrics"]["na_outcome_RED"] == 2 and a["metrics"]["na_outcome_BLUE"] == 18
    assert a["metrics"]["gain_RED"] >= 0 and a["metrics"]["imported"] is True
    assert b["status"] == "no_deal" and b["metrics"]["walk"] is True
    assert c["status"] == "no_deal" and c["metrics"]["bound_hit"] is True
    rows = {Path(r.spec["scenario"]).parent.name: r for r in _episodes(store)}
    assert {r.status for r in rows.values()} == {"done"}
    assert rows["a"].labels["imported"] == "negotiationarena"
    assert all(str(ag).startswith("imported:negotiationarena") for ag in rows["a"].spec["agents"])
    # accord show: the transcript with the players' messages and the counter-offers
    shown = runner.invoke(app, ["show", str(store), rows["a"].id])
    assert shown.exit_code == 0, shown.output
    assert "counter-offers price=30" in shown.output  # in the round it stands in
    assert "I propose 45 ZUP." in shown.output
    # accord results aggregates them
    table = runner.invoke(app, ["results", str(store), "-m", "agreement,surplus_RED", "--json"])
    assert table.exit_code == 0, table.output
    # importing again replaces (same ids), nothing is duplicated
    assert runner.invoke(app, ["import", "negotiationarena-log", str(logs), "--out",
                               str(store)]).exit_code == 0
    assert len(_episodes(store)) == 3


def test_served_episode_shows_the_transcript(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from accord.serve.app import create_app

    write_log(tmp_path / "a", buysell_log([50, 45, "ACCEPT"]))
    store = tmp_path / "na.db"
    (ep,) = import_logs(tmp_path / "a", store)
    client = TestClient(create_app([store]), base_url="http://127.0.0.1")
    page = client.get(f"/episodes/{ep['episode']}")
    assert page.status_code == 200
    assert "I propose 45 ZUP." in page.text
    assert client.get(f"/api/episodes/{ep['episode']}").json()["outcome"] == "agreement"
    run = client.get(f"/api/stores/0/runs/{RUN_NAME}/episodes").json()["run"]
    assert "imported read-only" in run["description"]


def test_a_trading_log_replays_to_the_goal(tmp_path: Path) -> None:
    write_log(tmp_path / "t", trading_log([({"X": 10}, {"Y": 10}), "ACCEPT"]))
    prep = prepare_log(tmp_path / "t")
    assert prep.result.status == "agreement"
    assert prep.result.record["agreement"] == {"X": 15, "Y": 15}
    assert prep.metrics["u_RED"] == 1.0 and prep.metrics["u_BLUE"] == 1.0


@pytest.mark.parametrize(("edit", "field"), [
    (lambda d: d["game_state"][1]["player_public_info_dict"].update(
        {"player answer": "MAYBE"}), r"game_state\[1\]\.player_public_info_dict\.player answer"),
    (lambda d: d["game_state"][2].update({"turn": 0}), r"game_state\[2\]\.turn"),
    (lambda d: d["game_state"][1]["player_public_info_dict"].update(
        {"newly proposed trade": {"_type": "trade", "_value": {
            "RED": {"_type": "resource", "_value": {"X": 1}},
            "BLUE": {"_type": "resource", "_value": {"ZUP": 5000}}}}}),
     r"game_state\[1\]\.player_public_info_dict\.newly proposed trade: price = 5000 is "
     r"outside the game"),
    (lambda d: d["game_state"][0].pop("settings"), r"game_state\[0\]\.settings"),
    (lambda d: d.update({"class": "UltimatumGame"}), r"class: expected one of"),
    (lambda d: d["game_state"][0]["settings"]["player_goals"][1]["_value"].update(
        {"_type": "seller_goal"}), r"player_goals: a buy-sell game has one seller_goal"),
    (lambda d: d["game_state"][0]["settings"]["player_initial_resources"][0].update(
        {"_value": {"X": -1}}), r"player_initial_resources\[0\]\._value\.X"),
])
def test_malformed_logs_name_file_and_field(tmp_path: Path, edit: Any, field: str) -> None:
    doc = buysell_log([50, 45, "ACCEPT"])
    edit(doc)
    write_log(tmp_path / "bad", doc)
    store = tmp_path / "s.db"
    with pytest.raises(FormatError, match=r"game_state\.json: " + field):
        import_logs(tmp_path / "bad", store)
    assert not store.exists()  # nothing written
    res = CliRunner().invoke(app, ["import", "negotiationarena-log", str(tmp_path / "bad"),
                                   "--out", str(store)])
    assert res.exit_code == 2 and "game_state.json" in res.output


def test_accept_before_any_proposal_and_missing_store(tmp_path: Path) -> None:
    write_log(tmp_path / "x", buysell_log(["ACCEPT"]))
    with pytest.raises(FormatError, match="ACCEPT with no proposal on the table"):
        prepare_log(tmp_path / "x")
    res = CliRunner().invoke(app, ["import", "negotiationarena-log", str(tmp_path / "x")])
    assert res.exit_code == 2 and "needs --out" in res.output


def _mutate(doc: Any, data: st.DataObject) -> None:
    """Replace one value somewhere in the document by junk."""
    node = doc
    for _ in range(data.draw(st.integers(1, 6))):
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node)))
            if not isinstance(node[key], (dict, list)) or data.draw(st.booleans()):
                node[key] = data.draw(st.one_of(st.none(), st.integers(-3, 3000),
                                                st.text(max_size=6), st.just([]),
                                                st.just({})))
                return
            node = node[key]
        elif isinstance(node, list) and node:
            i = data.draw(st.integers(0, len(node) - 1))
            if not isinstance(node[i], (dict, list)):
                node[i] = data.draw(st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=4)))
                return
            node = node[i]
        else:
            return


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_logs_import_or_fail_clearly(tmp_path_factory: pytest.TempPathFactory,
                                            data: st.DataObject) -> None:
    base = buysell_log([50, 30, 45, "ACCEPT"], budget=200) if data.draw(st.booleans()) \
        else trading_log([({"X": 10}, {"Y": 10}), "ACCEPT"])
    doc = copy.deepcopy(base)
    _mutate(doc, data)
    folder = tmp_path_factory.mktemp("na")
    write_log(folder, doc)
    try:
        prepare_log(folder)
    except FormatError as exc:
        assert "game_state.json" in str(exc)


@pytest.mark.skipif(not os.environ.get("ACCORD_NEGOTIATIONARENA_LOGS"),
                    reason="set ACCORD_NEGOTIATIONARENA_LOGS to a folder of NegotiationArena "
                           "logs (their example_logs/) to import the real ones")
def test_real_logs(tmp_path: Path) -> None:  # pragma: no cover - needs their repository
    done = import_logs(os.environ["ACCORD_NEGOTIATIONARENA_LOGS"], tmp_path / "real.db")
    for ep in done:
        m = ep["metrics"]
        if ep["status"] == "agreement" and "na_outcome_RED" in m:
            assert m["surplus_RED"] == pytest.approx(m["na_outcome_RED"])
            assert m["surplus_BLUE"] == pytest.approx(m["na_outcome_BLUE"])
