"""``accord dond`` commands through typer's CliRunner (offline)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.domains.deal_or_no_deal import fetch
from accord.domains.deal_or_no_deal.cli import app

runner = CliRunner()


def flat(text: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(text.split())


TABLE9_KEYS = {"difficulty", "datapoints", "agreement", "envy_free", "pareto_optimal",
               "envy_free_and_pareto_optimal"}


def test_stats_json_contract(dond_dir: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert set(out) == {"selection", "hardest", "datapoints", "with_envy_free", "best_rule",
                        "best", "human", "human_all", "exclusions", "table9",
                        "difficulty_table"}
    assert out["selection"] == "unique" and out["hardest"] is None
    assert out["datapoints"] == 545 and out["with_envy_free"] == 531
    assert out["best_rule"]["name"] == "authors"
    assert set(out["best"]) == {"alice", "bob", "total"}
    assert set(out["human"]) == {"rounds", "agreement", "alice", "bob", "pareto_optimal",
                                 "envy_free", "total"}
    row = out["difficulty_table"][0]
    assert set(row) == TABLE9_KEYS
    assert [r["difficulty"] for r in out["table9"]] == list(range(-2, -12, -1))
    assert all(set(r) == TABLE9_KEYS for r in out["table9"])


def test_stats_seed_selection_gives_table9(dond_dir: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(dond_dir / "test.txt"), "--selection",
                              "seed", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["selection"] == "seed" and out["datapoints"] == 526
    assert [r["datapoints"] for r in out["table9"]] == [13, 27, 57, 85, 108, 133, 177, 189,
                                                         210, 217]
    assert f"{out['table9'][-1]['agreement']:.4f}" == "0.7373"
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--selection", "seed"])
    assert res.exit_code == 0 and "Table 9: human outcome by difficulty" in flat(res.stdout)
    assert "over the 248 datapoints left by the seed's exclusions" in flat(res.stdout)


def test_stats_sample_gives_the_best_row(dond_dir: Path) -> None:
    sample = str(dond_dir / "sample50.txt")
    res = runner.invoke(app, ["stats", "--sample", sample, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["selection"] == "sample" and out["sample"] == sample
    assert out["datapoints"] == 50 and out["with_envy_free"] == 44
    b = out["best"]
    assert [f"{b[k]:.2f}" for k in ("alice", "bob", "total")] == ["5.82", "6.66", "12.48"]
    res = runner.invoke(app, ["stats", "--sample", sample, "--best-rule", "even", "--json"])
    b = json.loads(res.stdout)["best"]
    assert [f"{b[k]:.2f}" for k in ("alice", "bob", "total")] == ["5.98", "6.50", "12.48"]
    res = runner.invoke(app, ["stats", "--sample", sample])
    text = flat(res.stdout)
    assert res.exit_code == 0 and "over the 44 datapoints that admit an envy-free" in text
    assert "│ Best │ - │ 1.0000 │ 5.82 │ 6.66 │ 1.0000 │ 1.0000 │ 12.48 │" in text
    assert "rule 'authors'" in text


def test_stats_hardest_follows_the_seed(dond_dir: Path) -> None:
    """--hardest K: the K most difficult, then those with an envy-free allocation."""
    res = runner.invoke(app, ["stats", "--data", str(dond_dir / "test.txt"), "--selection",
                              "seed", "--hardest", "50", "--json"])
    out = json.loads(res.stdout)
    assert out["hardest"] == 50 and out["datapoints"] == 45 == out["with_envy_free"]
    res = runner.invoke(app, ["stats", "--sample", str(dond_dir / "sample50.txt"),
                              "--hardest", "50", "--json"])
    out = json.loads(res.stdout)
    assert out["datapoints"] == 44 == out["with_envy_free"]
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--hardest", "10",
                              "--exact-levels"])
    assert res.exit_code == 0 and "human outcome per difficulty level" in res.stdout


def test_stats_option_errors(dond_dir: Path) -> None:
    sample = str(dond_dir / "sample50.txt")
    res = runner.invoke(app, ["stats", "--sample", sample, "--selection", "unique"])
    assert res.exit_code == 2 and "without --selection unique" in flat(res.output)
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--selection", "all"])
    assert res.exit_code == 2 and "unknown selection 'all'" in flat(res.output)
    res = runner.invoke(app, ["stats", "--sample", sample, "--best-rule", "fair"])
    assert res.exit_code == 2 and "unknown best rule 'fair'" in flat(res.output)
    res = runner.invoke(app, ["stats", "--sample", str(dond_dir / "nope.txt")])
    assert res.exit_code == 2 and "no such file" in flat(res.output)


def test_play_json(dond_dir: Path) -> None:
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "workflow,workflow",
                              "--hardest", "6", "--json", "--details"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["agents"] == ["workflow", "workflow"] and out["errors"] == 0
    assert out["selection"] == "unique"
    s = out["summary"]
    assert s["episodes"] == 5 and s["agreement"] == 1.0 and s["envy_free"] == 1.0
    assert s["estimation"]["precision"] == 1.0
    assert len(out["episodes"]) == 5 and out["estimation_by_round"][0]["round"] == 1.0
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "dataset-human,greedy",
                              "--limit", "3"])
    # one line above the table (as the table's title it wrapped to the narrow table)
    assert res.exit_code == 0 and "dataset-human vs greedy: 3 episodes\n" in res.stdout
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "dataset-human,greedy",
                              "--limit", "1"])
    assert res.exit_code == 0 and "dataset-human vs greedy: 1 episode\n" in res.stdout


def test_play_sample_runs_the_seeds_50(dond_dir: Path) -> None:
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "dataset-human,greedy",
                              "--sample", str(dond_dir / "sample50.txt"), "--json",
                              "--details"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["selection"] == "sample" and out["errors"] == 0
    assert out["summary"]["episodes"] == 50
    assert out["summary_with_envy_free"]["episodes"] == 44
    ids = [e["datapoint"] for e in out["episodes"]]
    assert ids[:3] == ["test/L7", "test/L9", "test/L13"] and len(set(ids)) == 50
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "workflow,greedy",
                              "--selection", "seed", "--hardest", "3", "--json", "--details"])
    assert res.exit_code == 0, res.output
    assert all(e["datapoint"].startswith("test/L") for e in json.loads(res.stdout)["episodes"])


def test_errors_are_clear(tmp_path: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(tmp_path), "--json"])
    assert res.exit_code == 2 and "accord dond download" in flat(res.output)
    res = runner.invoke(app, ["play", "--data", str(tmp_path), "--agents", "workflow"])
    assert res.exit_code == 2 and "two specs" in flat(res.output)
    res = runner.invoke(app, ["play", "--data", str(tmp_path), "--agents", "workflow,boulware"])
    assert res.exit_code == 2 and "unknown agent kind 'boulware'" in flat(res.output)
    bad = tmp_path / "test.txt"
    bad.write_text("garbage\n", encoding="utf-8")
    res = runner.invoke(app, ["stats", "--data", str(bad)])
    assert res.exit_code == 2 and "test.txt:1:" in flat(res.output)


def test_download_from_file_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    up = tmp_path / "up"
    up.mkdir()
    files = {"test.txt": b"t\n", "val.txt": b"v\n", "data.txt": b"d\n",
             "sample50.txt": b"s\n"}
    for name, body in files.items():
        (up / name).write_bytes(body)
    monkeypatch.setattr(fetch, "expected_sums",
                        lambda: {n: hashlib.sha256(b).hexdigest() for n, b in files.items()})
    res = runner.invoke(app, ["download", "--dest", str(tmp_path / "d"), "--base-url",
                              up.as_uri() + "/", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [f["status"] for f in out["files"]] == ["fetched"] * 4
    (up / "val.txt").write_bytes(b"evil\n")
    res = runner.invoke(app, ["download", "--dest", str(tmp_path / "e"), "--base-url",
                              up.as_uri() + "/"])
    assert res.exit_code == 1 and "does not match" in flat(res.output)


@pytest.mark.parametrize("where", ["closed-port", "missing-folder"])
def test_download_offline_says_how_to_proceed(tmp_path: Path, where: str) -> None:
    """An unreachable upstream names the URL and points at --base-url file:// and
    ACCORD_DATA (it used to stop at "download failed: <urlopen error ...>")."""
    import socket

    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        base = (f"http://127.0.0.1:{closed.getsockname()[1]}/" if where == "closed-port"
                else (tmp_path / "nowhere").as_uri() + "/")
        res = runner.invoke(app, ["download", "--data", str(tmp_path / "d"), "--base-url",
                                  base, "--json"])
    text = flat(res.output)
    assert res.exit_code == 1 and res.stdout == ""
    assert f"cannot fetch {base}test.txt" in text
    assert "Offline? Copy test.txt, val.txt, data.txt" in text and "sample50.txt" in text
    assert "accord dond download --base-url file:///path/to/folder/" in text
    assert "ACCORD_DATA=/path/to/folder" in text


def test_meta_game_with_code_agents(dond_dir: Path) -> None:
    res = runner.invoke(app, ["meta", "--data", str(dond_dir), "--hardest", "8", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["use"] == "workflow" and out["raw"] == "greedy" and out["datapoints"] == 7
    assert set(out["payoffs"]) == {"workflow,workflow", "workflow,raw", "raw,workflow",
                                   "raw,raw"}
    assert out["pure_nash"] and all(len(p) == 2 for p in out["pure_nash"])


def test_sample_is_also_looked_up_in_the_data_folder(dond_dir: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--sample", "sample50.txt",
                              "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["datapoints"] == 50 and out["sample"] == str(dond_dir / "sample50.txt")


def test_dond_play_help_lists_the_registrys_batch_kinds() -> None:
    """The help text is written out (the CLI module must not import the domain to build
    it); this keeps it equal to the registry's built-in kinds a batch run can seat."""
    from accord.domains.deal_or_no_deal.agents import AGENT_KINDS
    from accord.domains.deal_or_no_deal.cli import AGENT_KINDS_HELP

    builtin = {k for k in AGENT_KINDS.kinds() if k != "human"}  # human needs a terminal
    assert set(AGENT_KINDS_HELP.split(", ")) == builtin


def test_play_refuses_a_person_and_names_the_command_that_seats_one(tmp_path: Path) -> None:
    """``dond play`` runs many datapoints unattended: a ``human`` seat is refused before any
    data is read, with the user's line-up in the command that does seat a person (not the
    agent registry's generic "cannot run unattended in `accord bench`")."""
    for agents in ("human,workflow", "greedy,human"):
        res = runner.invoke(app, ["play", "--data", str(tmp_path), "--agents", agents])
        out = flat(res.output)
        assert res.exit_code == 2, out
        assert "--agents human: `accord dond play` negotiates many datapoints unattended" in out
        assert f"accord run deal-or-no-deal/test/L7 --agents {agents} --data {tmp_path} " \
               "--save runs/people.db" in out
        assert "accord serve --play" in out and "accord bench" not in out
        assert "accord dond download" not in out  # refused before looking for the data


def test_the_command_the_refusal_names_stores_a_human_row(tmp_path: Path,
                                                          dond_dir: Path) -> None:
    """Follow the refusal's advice under a real pseudo-terminal: the person plays the
    datapoint, and ``accord results --layout dond`` shows the Human (people) row."""
    import os
    import re
    import sys

    import pexpect

    from accord.cli.main import app as main_app

    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "human,workflow"])
    m = re.search(r"run: accord run (\S+) --agents (\S+) --data (\S+) --save (\S+)",
                  flat(res.output))
    assert m is not None, res.output
    env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "dumb", "NO_COLOR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "accord", "run", m[1], "--agents", m[2],
                                           "--data", m[3], "--save", m[4]],
                          env=env, encoding="utf-8", timeout=120, dimensions=(40, 120),
                          cwd=str(tmp_path))
    child.expect(r"alice move \(offer/message/walk, help\)> ")
    child.sendline("message what would you like?")
    child.expect("proposes to take")
    child.expect(r"alice move \(offer/accept/reject/message/walk, help\)> ")
    child.sendline("accept")
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in (child.before or "") and child.exitstatus == 0
    res = runner.invoke(main_app, ["results", str(tmp_path / m[4]), "--layout", "dond",
                                   "--json"])
    assert res.exit_code == 0, res.output
    (t10,) = json.loads(res.stdout)["tables"]
    (row,) = [r for r in t10["rows"] if r.get("source") == "people"]
    assert row["row"] == "Human (people: human (alice) vs workflow)" and row["n"] == 1
    assert row["agreement"] == 1.0
