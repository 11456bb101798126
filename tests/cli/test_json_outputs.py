"""Every command that takes ``--json`` prints exactly one JSON document on stdout.

Each command runs in a subprocess (``python -m accord``), as a script would run it, and its
whole stdout is parsed. The list of commands is checked against the typer app itself, so a
new ``--json`` command without a case here fails the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from accord.cli.main import command_tree

REPO = Path(__file__).resolve().parents[2]
DOND = Path(os.environ.get("ACCORD_DATA", REPO.parent / "shared" / "data")) / "dealornodeal"
INSTANCE = REPO / "src/accord/domains/deliberation/data/instances/menu-numeric"


def json_commands() -> set[str]:
    """``"group command"`` for every command of the app with a ``--json`` option (a group
    counts when it takes one itself: ``accord scenarios --json`` lists, ``scenarios show``
    writes a file)."""
    return {path for path, cmd in command_tree()
            if any("--json" in getattr(p, "opts", []) for p in cmd.params)}


#: how ``accord`` is started; the wheel test points it at an installed copy
COMMAND: list[str] = [sys.executable, "-m", "accord"]


def accord(*args: str, cwd: Path, ok: tuple[int, ...] = (0,)) -> Any:
    """Run ``accord ARGS`` in a subprocess and parse its whole stdout as one JSON document."""
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("ACCORD_DATA", None)
    proc = subprocess.run([*COMMAND, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in ok, (args, proc.returncode, proc.stderr[-2000:])
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as exc:  # pragma: no cover - the failure message
        raise AssertionError(f"accord {' '.join(args)}: stdout is not one JSON document "
                             f"({exc}):\n{proc.stdout[:2000]}") from None


def build_work(d: Path) -> Path:
    """Fill folder ``d`` with small stores of every kind the read commands need."""
    (d / "games.yaml").write_text("name: g\ndomain: games\nscenarios: [stag-hunt]\n"
                                  "agents: [[rational, rational]]\nseeds: 2\n")
    (d / "tx.yaml").write_text("name: tx\ndomain: task-exchange\nscenarios: [competitive]\n"
                               "agents: [[utility-aware, utility-aware]]\n"
                               "params: {strategy: [utility-aware, baseline]}\nseeds: 1\n")
    for cfg, store in (("demo", "demo.db"), ("games.yaml", "games.db"), ("tx.yaml", "tx.db")):
        assert accord("bench", cfg, "--out", store, "--json", cwd=d)["failed"] == 0
    accord("run", "bargaining/split", "--agents", "llm:mock/negotiator,linear", "--cache",
           str(d / "llm.db"), "--json", cwd=d)
    return d


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder with the stores of :func:`build_work`."""
    return build_work(tmp_path_factory.mktemp("json"))


def _first_instance() -> Path:
    return sorted(INSTANCE.glob("*.json"))[0]


def _dond_id() -> str:
    from accord.domains.deal_or_no_deal import load_datapoints

    return load_datapoints(str(DOND), "test")[0].id


#: command -> a function of the work folder running it and checking its document
CASES: dict[str, Any] = {}


def case(name: str) -> Any:
    def deco(fn: Any) -> Any:
        CASES[name] = fn
        return fn
    return deco


@case("scenarios")
def _scenarios(w: Path) -> None:
    doc = accord("scenarios", "--json", cwd=w)
    assert "buyer-seller" in doc["domains"]["bargaining"]["scenarios"]


@case("run")
def _run(w: Path) -> None:
    doc = accord("run", "bargaining/buyer-seller", "--agents", "boulware,conceder", "--json",
                 cwd=w)
    assert doc["status"] in ("agreement", "no_deal")
    assert accord("run", "task-exchange/competitive", "--agents",
                  "utility-aware,utility-aware", "--json", cwd=w)["status"] == "agreed"
    assert accord("run", "deliberation/menu-numeric", "--agents", "share,share", "--json",
                  cwd=w)["nr"] is not None
    assert accord("run", "games/stag-hunt", "--agents", "rational,rational", "--json",
                  cwd=w)["status"] == "completed"  # a game is not an agreement
    doc = accord("run", "bargaining/split", "--agents", "llm:mock/negotiator,linear",
                 "--cache", str(w / "llm.db"), "--cache-mode", "replay", "--json", cwd=w)
    assert doc["status"] in ("agreement", "no_deal")  # replayed from the fixture's cache


@case("analyze")
def _analyze(w: Path) -> None:
    assert accord("analyze", "bargaining/procurement", "--json", cwd=w)["nash"] is not None


@case("import")
def _import(w: Path) -> None:
    genius = REPO / "tests/formats/fixtures/genius/party"
    doc = accord("import", "genius", str(genius), "--out", str(w / "imported"), "--json",
                 cwd=w)
    assert Path(doc["written"]).is_file() and doc["outcomes"] == 36


@case("bench")
def _bench(w: Path) -> None:
    dry = accord("bench", "demo", "--out", str(w / "again.db"), "--dry-run", "--json", cwd=w)
    assert dry["planned"] == 20 and dry["to_run"] == 20
    doc = accord("bench", "demo", "--out", str(w / "demo.db"), "--json", cwd=w)  # resumes
    assert doc["planned"] == 20 and doc["already_done"] == 20 and doc["done"] == 0
    assert doc["store"].endswith("demo.db") and doc["failed"] == 0


@case("results")
def _results(w: Path) -> None:
    doc = accord("results", "demo.db", "--json", cwd=w)
    assert doc["groups"]
    eps = accord("results", "demo.db", "--episodes", "--json", cwd=w)["episodes"]
    assert len(eps) == 20 and all(len(e["id"]) >= 8 for e in eps)
    assert accord("results", "tx.db", "--layout", "task-exchange", "--json", cwd=w)


@case("leaderboard")
def _leaderboard(w: Path) -> None:
    doc = accord("leaderboard", "demo.db", "games.db", "--bootstrap", "20", "--json", cwd=w)
    assert {r["player"] for r in doc["ratings"]} == {"boulware", "linear", "random"}
    assert doc["domains"] == {"bargaining": 20} and doc["bootstrap"] == 20
    assert any("self-play" in why for why in doc["skipped"])  # rational vs rational


@case("show")
def _show(w: Path) -> None:
    eid = accord("results", "demo.db", "--episodes", "--json", cwd=w)["episodes"][0]["id"]
    doc = accord("show", "demo.db", eid[:10], "--json", cwd=w)
    assert doc["id"] == eid and doc["trajectory"]


@case("deliberation import")
def _deliberation_import(w: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "formats"))
    from seed001lib import task_game, write_task

    game = task_game(0)
    write_task(w / "authors" / "game_0000.pkl", game)
    doc = accord("deliberation", "import", str(w / "authors"), "--out", str(w / "seed001"),
                 "--json", cwd=w)
    assert doc["written"] == {"task-allocation": 1}, doc
    solved = accord("deliberation", "solve", doc["files"]["task-allocation"][0], "--json",
                    cwd=w)
    assert solved["reward"] == pytest.approx(game["max_reward"], abs=1e-9)


@case("fork")
def _fork(w: Path) -> None:
    eid = accord("results", "demo.db", "--episodes", "--json", cwd=w)["episodes"][0]["id"]
    doc = accord("fork", "demo.db", eid[:10], "--at", "2", "--party", "1=conceder", "--json",
                 cwd=w)
    assert doc["parent"]["id"] == eid and doc["at"] == 2
    assert [r["episode"] for r in doc["comparison"]] == ["parent", "fork 1"]


@case("series")
def _series(w: Path) -> None:
    doc = accord("series", "bargaining/buyer-seller", "--agents",
                 "llm:mock/negotiator,boulware", "-n", "2", "--critic", "code", "--json", cwd=w)
    assert len(doc["episodes"]) == 2 and doc["metrics"]["episodes"] == 2
    assert "Episode 1:" in doc["episodes"][1]["memory_in"]["buyer"]


@case("approve")
def _approve(w: Path) -> None:
    run = accord("run", "bargaining/procurement", "--agents", "boulware,conceder", "--save",
                 str(w / "deals.db"), "--require-approval", "--json", cwd=w)
    assert run["status"] == "agreement" and run["stored"]["approval"] == "pending"
    eid = run["stored"]["id"]
    doc = accord("approve", "deals.db", eid[:8], "--reject", "--comment", "over budget",
                 "--json", cwd=w)
    assert doc["id"] == eid and doc["approval"]["state"] == "rejected"
    assert doc["approval"]["comment"] == "over budget" and doc["approval"]["decided"]
    shown = accord("show", "deals.db", eid, "--json", cwd=w)
    assert shown["approval"]["state"] == "rejected" and shown["status"] == "done"
    listed = accord("results", "deals.db", "--json", cwd=w)["episodes"]
    assert [e["approval"]["state"] for e in listed] == ["rejected"]


@case("configs list")
def _configs(w: Path) -> None:
    names = {c["name"] for c in accord("configs", "list", "--json", cwd=w)["configs"]}
    assert {"demo", "games_tables5_8", "deliberation_table2"} <= names


@case("cache stats")
def _cache(w: Path) -> None:
    assert accord("cache", "stats", str(w / "llm.db"), "--json", cwd=w)["entries"] > 0


@case("store check")
def _store_check(w: Path) -> None:
    doc = accord("store", "check", "demo.db", "--json", cwd=w)
    assert doc["ok"] is True and doc["episodes"] == doc["readable"] == 20


@case("deliberation solve")
def _delib_solve(w: Path) -> None:
    assert accord("deliberation", "solve", str(_first_instance()), "--json",
                  cwd=w)["reward"] > 0


@case("deliberation list")
def _delib_list(w: Path) -> None:
    assert accord("deliberation", "list", "--json", cwd=w)["settings"]
    assert accord("deliberation", "list", "task-allocation", "--json", cwd=w)["instances"]


@case("deliberation run")
def _delib_run(w: Path) -> None:
    assert accord("deliberation", "run", "menu-numeric", "--agents", "share,share", "--json",
                  cwd=w)["status"]


@case("games list")
def _games_list(w: Path) -> None:
    assert accord("games", "list", "--json", cwd=w)["games"]


@case("games solve")
def _games_solve(w: Path) -> None:
    assert accord("games", "solve", "prisoners-dilemma", "--json", cwd=w)["pure_nash"]


@case("games play")
def _games_play(w: Path) -> None:
    doc = accord("games", "play", "stag-hunt", "--agents", "rational,rational", "--repeat",
                 "2", "--json", cwd=w)
    assert len(doc["episodes"]) == 2


@case("games plot")
def _games_plot(w: Path) -> None:
    doc = accord("games", "plot", "games.db", "--out", str(w / "plots"), "--json", cwd=w)
    assert doc["episodes"] == 2


@case("task-exchange list")
def _tx_list(w: Path) -> None:
    assert "competitive" in accord("task-exchange", "list", "--json", cwd=w)["scenarios"]


@case("task-exchange run")
def _tx_run(w: Path) -> None:
    assert accord("task-exchange", "run", "cooperative", "--json", cwd=w)["status"] == "agreed"


@case("task-exchange tables")
def _tx_tables(w: Path) -> None:
    assert accord("task-exchange", "tables", "tx.db", "--json", cwd=w)


@case("task-exchange generate")
def _tx_generate(w: Path) -> None:
    doc = accord("task-exchange", "generate", "--model", "mock/task-exchange-generator",
                 "--out", str(w / "gen.yaml"), "--json", cwd=w)
    assert doc["composites"] > 0 and Path(doc["scenario"]).is_file()


def _need_dond() -> None:
    if not (DOND / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found at {DOND}")


@case("dond stats")
def _dond_stats(w: Path) -> None:
    _need_dond()
    assert accord("dond", "stats", "--data", str(DOND), "--json", cwd=w)["datapoints"] > 500


@case("dond play")
def _dond_play(w: Path) -> None:
    _need_dond()
    doc = accord("dond", "play", "--data", str(DOND), "--agents", "workflow,greedy",
                 "--limit", "3", "--out", str(w / "dond.db"), "--json", cwd=w)
    assert doc["summary"]["episodes"] == 3
    doc = accord("run", f"deal-or-no-deal/{_dond_id()}", "--agents", "workflow,workflow",
                 "--data", str(DOND), "--json", cwd=w)
    assert doc["status"] in ("agreement", "no_deal")


@case("dond meta")
def _dond_meta(w: Path) -> None:
    _need_dond()
    assert accord("dond", "meta", "--data", str(DOND), "--hardest", "3", "--json",
                  cwd=w)["datapoints"] == 2


@case("dond download")
def _dond_download(w: Path) -> None:
    _need_dond()
    doc = accord("dond", "download", "--data", str(w / "dl"), "--base-url",
                 DOND.as_uri() + "/", "--json", cwd=w)
    assert {f["name"] for f in doc["files"]} == {"test.txt", "val.txt", "data.txt",
                                                 "sample50.txt"}


def test_every_json_command_has_a_case() -> None:
    assert json_commands() == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_command_prints_one_document(name: str, work: Path) -> None:
    CASES[name](work)
