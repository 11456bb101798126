"""``accord leaderboard`` on a store written by a real bench run (concession strategies)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner()

SPEC = """name: lb
domain: bargaining
scenarios: [buyer-seller]
agents:
  product:
    - [boulware, conceder, random]
    - [boulware, conceder, random]
seeds: 3
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("lb")
    (d / "lb.yaml").write_text(SPEC)
    res = runner.invoke(app, ["bench", str(d / "lb.yaml"), "--out", str(d / "lb.db"),
                              "--json"])
    assert res.exit_code == 0, res.output
    return d / "lb.db"


def test_json_rates_every_agent_with_intervals_and_head_to_head(store: Path) -> None:
    res = runner.invoke(app, ["leaderboard", str(store), "--json", "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    ratings = {r["player"]: r for r in doc["ratings"]}
    assert set(ratings) == {"boulware", "conceder", "random"}
    # 9 line-ups x 3 seeds; the 3 self-play line-ups are skipped and said so
    assert doc["domains"] == {"bargaining": 18}
    assert list(doc["skipped"].values()) == [9]
    for r in ratings.values():
        assert r["low"] <= r["rating"] <= r["high"]
        assert r["wins"] + r["draws"] + r["losses"] == r["matches"] == 12
    # boulware concedes late: it beats the conceder in every meeting (both seats)
    h2h = {(h["player"], h["opponent"]): h for h in doc["head_to_head"]}
    assert h2h[("boulware", "conceder")]["wins"] == 6
    assert 0 <= h2h[("boulware", "conceder")]["mean_score"] <= 1
    assert doc["ratings"][0]["player"] == "boulware"
    again = runner.invoke(app, ["leaderboard", str(store), "--json", "--bootstrap", "50"])
    assert json.loads(again.stdout) == doc  # seeded: the same intervals


def test_table_markdown_and_csv(store: Path) -> None:
    res = runner.invoke(app, ["leaderboard", str(store), "--bootstrap", "20"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "Bradley–Terry" in res.output and "Head to head" in res.output
    assert "Skipped 9 episodes: bargaining: self-play" in res.output
    md = runner.invoke(app, ["leaderboard", str(store), "--format", "md", "--method", "elo",
                             "--bootstrap", "10"]).stdout
    assert md.startswith("| # | agent | rating | 95% CI |") and md.count("\n") == 5
    csv = runner.invoke(app, ["leaderboard", str(store), "-f", "csv", "--bootstrap", "0"])
    head = csv.stdout.splitlines()[0].split(",")
    assert head[:3] == ["rank", "player", "rating"]
    assert "opponent" in csv.stdout and "agreement_rate" in csv.stdout


def test_bad_options_fail_with_specific_messages(store: Path, tmp_path: Path) -> None:
    cases = [(["--method", "glicko"], "--method must be one of bt, elo"),
             (["--by", "seat"], "--by must be one of agent, model, agent0"),
             (["--bootstrap", "-1"], "--bootstrap must be 0 or more"),
             (["--format", "html"], "--format must be one of"),
             (["--run", "nope"], "no run 'nope'")]
    for extra, msg in cases:
        res = runner.invoke(app, ["leaderboard", str(store), *extra])
        assert res.exit_code == 2, (extra, res.output)
        assert msg in res.output, (extra, res.output)
    res = runner.invoke(app, ["leaderboard", str(tmp_path / "missing.db")])
    assert res.exit_code == 2 and "missing.db" in res.output
    (tmp_path / "junk.db").write_text("not a database")
    res = runner.invoke(app, ["leaderboard", str(tmp_path / "junk.db")])
    assert res.exit_code == 2 and "junk.db" in res.output and "Traceback" not in res.output


def test_sentences_say_whether_the_lead_is_clear_and_which_ratings_rest_on_little() -> None:
    from accord.bench.leaderboard import Match, Seat, leaderboard
    from accord.cli.leaderboard import verdicts

    clear = [Match((Seat("a", 1.0), Seat("b", 0.0)), True)] * 40
    lines = verdicts(leaderboard(clear, bootstrap=50))
    assert lines == ["a leads b by " + lines[0].split(" by ")[1]]
    assert "do not overlap: the lead is clear" in lines[0]
    close = [Match((Seat("a", 1.0), Seat("b", 0.0)), True)] * 2 + \
        [Match((Seat("b", 1.0), Seat("a", 0.0)), True)] * 1
    lines = verdicts(leaderboard(close, bootstrap=50))
    assert "intervals overlap" in lines[0]
    assert lines[1].startswith("a, b played fewer than 5 episodes: their ratings rest")
