"""Issue 12, findings 2, 5 and 7 (concurrent benches): each one a regression test.

Every command here must end with exit 2 and one short, specific message that names the
file (and key where there is one) - no traceback, no minutes, no gigabytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import fileclasses
import fuzzlib
import pytest
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner()
SRC = fuzzlib.SRC
BUYER_SELLER = (SRC / "domains/bargaining/data/buyer-seller.yaml").read_text()
PRISONERS = (SRC / "domains/games/data/games/prisoners-dilemma.yaml").read_text()
MENU = SRC / "domains/deliberation/data/instances/menu-numeric/00.json"
TASKS = SRC / "domains/deliberation/data/instances/task-allocation/00.json"
TE_SCENARIO = (SRC / "domains/task_exchange/data/scenarios/cooperative.yaml").read_text()


def _fails(args: list[str], *fragments: str, limit: int = 2000) -> str:
    """Run the CLI; assert exit 2, no traceback, a short message holding ``fragments``."""
    res = runner.invoke(app, args)
    text = " ".join(res.output.split())
    assert res.exit_code == 2, (res.exit_code, res.output[-3000:], res.exception)
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert len(res.output) < limit, len(res.output)
    for frag in fragments:
        assert frag in text, (frag, text)
    return text


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- finding 2: small files that cost minutes and gigabytes -----------------------------

def test_billion_laughs_games_file(tmp_path: Path) -> None:
    game = _write(tmp_path / "laughs.yaml", fileclasses.LAUGHS)
    _fails(["games", "solve", str(game)], str(game), "aliases expand")


def test_billion_laughs_bench_file(tmp_path: Path) -> None:
    spec = _write(tmp_path / "laughs.yaml", fileclasses.LAUGHS)
    _fails(["bench", str(spec), "--dry-run"], str(spec), "aliases expand")


def test_aliased_issues_value_prints_a_short_error(tmp_path: Path) -> None:
    text = textwrap.dedent("""\
        name: aliased
        issues:
          a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
          b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
          c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
        parties: {}
        """)
    scen = _write(tmp_path / "aliased.yaml", text)
    _fails(["analyze", str(scen)], str(scen), "issues.b", limit=1000)


@pytest.mark.parametrize("values, size", [(10, "10,000,000"), (30, "21,870,000,000")])
def test_outcome_space_cap_before_allocation(tmp_path: Path, values: int, size: str) -> None:
    issues = "\n".join(f"  i{k}: {list(range(values))}" for k in range(7))
    text = (f"name: huge\nissues:\n{issues}\nparties:\n"
            "  a: {batna: 0, utility: {type: table, default: 0, table: {}}}\n"
            "  b: {batna: 0, utility: {type: table, default: 0, table: {}}}\n")
    scen = _write(tmp_path / "huge.yaml", text)
    _fails(["analyze", str(scen)], str(scen), "issues", size, "--max-outcomes")
    _fails(["run", str(scen), "-a", "boulware,conceder"], size, "--max-outcomes")


def test_outcome_space_past_indexing_is_refused_even_when_raised(tmp_path: Path) -> None:
    issues = "\n".join(f"  i{k}: {list(range(100))}" for k in range(12))
    text = (f"name: vast\nissues:\n{issues}\nparties:\n"
            "  a: {batna: 0, utility: {type: table}}\n  b: {batna: 0, utility: {type: table}}\n")
    scen = _write(tmp_path / "vast.yaml", text)
    _fails(["analyze", str(scen), "--max-outcomes", str(10**30)], "cannot be indexed")


@pytest.mark.parametrize("seeds", ["1000000000", "{start: 0, count: 1000000000}"])
def test_seed_count_cap_even_with_dry_run(tmp_path: Path, seeds: str) -> None:
    spec = _write(tmp_path / "big.yaml", "name: big\ndomain: bargaining\nscenarios: "
                  f"[buyer-seller]\nagents: [[boulware, conceder]]\nseeds: {seeds}\n")
    _fails(["bench", str(spec), "--dry-run"], str(spec), "seeds", "--max-episodes")


def test_parameter_and_lineup_products_are_counted_before_building(tmp_path: Path) -> None:
    params = "\n".join(f"  p{k}: [{', '.join(map(str, range(10)))}]" for k in range(8))
    spec = _write(tmp_path / "grid.yaml", "name: grid\ndomain: bargaining\nscenarios: "
                  f"[buyer-seller]\nagents: [[boulware, conceder]]\nparams:\n{params}\n")
    _fails(["bench", str(spec), "--dry-run"], "params", "100,000,000 episodes")
    pool = "[" + ", ".join(["boulware", "linear", "conceder", "hardliner"] * 3) + "]"
    spec = _write(tmp_path / "tour.yaml", "name: tour\ndomain: bargaining\nscenarios: "
                  f"[buyer-seller]\nagents: {{product: [{', '.join([pool] * 6)}]}}\n")
    _fails(["bench", str(spec), "--dry-run"], "agents.product", "--max-episodes")


def test_max_episodes_raises_the_cap(tmp_path: Path) -> None:
    spec = _write(tmp_path / "some.yaml", "name: some\ndomain: bargaining\nscenarios: "
                  "[buyer-seller]\nagents: [[boulware, conceder]]\nseeds: 20\n")
    _fails(["bench", str(spec), "--dry-run", "--max-episodes", "10"], "20 episodes")
    res = runner.invoke(app, ["bench", str(spec), "--dry-run", "--max-episodes", "20",
                              "--json", "--out", str(tmp_path / "s.db")])
    assert res.exit_code == 0 and json.loads(res.stdout)["planned"] == 20


def test_tasks_dev_zero_is_refused_before_reading(tmp_path: Path) -> None:
    text = "\n".join("tasks: /dev/zero" if ln.startswith("tasks:") else ln
                     for ln in TE_SCENARIO.splitlines())
    scen = _write(tmp_path / "zero.yaml", text)
    _fails(["run", f"task-exchange/{scen}", "-a", "utility-aware,utility-aware"],
           str(scen), "tasks", "/dev/zero", "not a regular file")


# -- finding 5: tracebacks instead of a clear error ----------------------------------------

def _bad_files(tmp_path: Path, data: bytes, stem: str) -> dict[str, list[str]]:
    """One command per loader, each reading ``data`` from a file of the right suffix."""
    y = _write(tmp_path / f"{stem}.yaml", data)
    j = _write(tmp_path / f"{stem}.json", data)
    t = _write(tmp_path / f"{stem}.txt", data)
    return {"run": ["run", str(y), "-a", "boulware,conceder"], "analyze": ["analyze", str(y)],
            "games": ["games", "solve", str(y)], "games-json": ["games", "solve", str(j)],
            "bench": ["bench", str(y), "--dry-run"],
            "deliberation": ["deliberation", "solve", str(j)],
            "dond": ["dond", "stats", "--data", str(t)],
            "task-exchange": ["run", f"task-exchange/{y}", "-a", "utility-aware,utility-aware"]}


@pytest.mark.parametrize("command", ["run", "analyze", "games", "games-json", "bench",
                                     "deliberation", "dond", "task-exchange"])
def test_non_utf8_names_the_file_everywhere(tmp_path: Path, command: str) -> None:
    args = _bad_files(tmp_path, "name: caf\u00e9\n".encode("latin-1"), "latin")[command]
    path = next(a for a in args if "latin." in a).removeprefix("task-exchange/")
    _fails(args, path, "not UTF-8")


@pytest.mark.parametrize("command", ["run", "analyze", "games", "games-json", "bench",
                                     "deliberation", "task-exchange"])
@pytest.mark.parametrize("shape", ["block", "flow", "json"])
def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path: Path, command: str,
                                                        shape: str) -> None:
    data = {"block": "".join("  " * i + "a:\n" for i in range(700)),
            "flow": "a: " + "[" * 700 + "]" * 700,
            "json": '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"}[shape]
    args = _bad_files(tmp_path, data.encode(), "deep")[command]
    if command in ("games-json", "deliberation") and shape != "json":
        _fails(args, "invalid JSON")
    else:
        _fails(args, "nesting deeper than")


@pytest.mark.parametrize("command", ["run", "analyze", "games", "bench", "task-exchange"])
def test_cyclic_alias(tmp_path: Path, command: str) -> None:
    args = _bad_files(tmp_path, b"name: &a [*a]\n", "cyclic")[command]
    _fails(args, "cyclic alias")


def test_game_type_that_is_a_mapping(tmp_path: Path) -> None:
    game = _write(tmp_path / "g.json", '{"type": {}, "players": ["a"], "actions": [["x"]], '
                  '"payoffs": [[1]]}')
    _fails(["games", "solve", str(game)], str(game), "'type'", "must be 'normal' or")


@pytest.mark.parametrize("payoff", ['"1e400"', '"-1e400"', '"1e-400"', '"1e999999999"',
                                    "1e400", '"1/100000000000000000000"', "10" * 20])
def test_payoff_out_of_range(tmp_path: Path, payoff: str) -> None:
    game = _write(tmp_path / "g.json", '{"type": "normal", "players": ["a", "b"], "actions": '
                  f'[["x"], ["y"]], "payoffs": [[[{payoff}, 1]]]}}')
    _fails(["games", "solve", str(game)], str(game), "out of range")


def test_game_parameter_out_of_range(tmp_path: Path) -> None:
    _fails(["games", "solve", "golden-balls", "--param", "jackpot=1e400"], "out of range")


@pytest.mark.parametrize("value, fragment", [(1e308, "out of range"), (1e-320, "too small"),
                                             (1e12, "at most 1e+09"),
                                             (1e-9, "at least 1e-06")])
@pytest.mark.parametrize("where", ["ingredients", "requirements"])
def test_deliberation_quantities(tmp_path: Path, value: float, fragment: str,
                                 where: str) -> None:
    data = json.loads((MENU if where == "ingredients" else TASKS).read_text())
    table = data[where]
    if where == "requirements":
        table = table[data["tasks"][0]]
    table[next(iter(table))] = value
    inst = _write(tmp_path / "inst.json", json.dumps(data))
    _fails(["deliberation", "solve", str(inst)], str(inst), where, fragment)


def test_deliberation_ilp_size_is_capped_before_solving(tmp_path: Path) -> None:
    """One of the issue's "ran past 60-120 s" classes: 30 agents x 400 tasks never ended."""
    agents, tasks = [f"a{i}" for i in range(30)], [f"t{j}" for j in range(400)]
    data = {"setting": "task-allocation", "agents": agents, "leader": "a0", "tasks": tasks,
            "efficiency": {a: {t: 0.5 for t in tasks} for a in agents},
            "private_resources": {a: {"Time": 10} for a in agents},
            "public_resources": {"Budget": 1000},
            "requirements": {t: {"Time": 2, "Budget": 10} for t in tasks}}
    inst = _write(tmp_path / "big.json", json.dumps(data))
    _fails(["deliberation", "solve", str(inst)], str(inst), "12,000 binary variables")


def test_deliberation_quantities_in_memory_too() -> None:
    from accord.domains.deliberation import InstanceError, parse_instance

    data = json.loads(MENU.read_text())
    data["ingredients"][next(iter(data["ingredients"]))] = 1e-320
    with pytest.raises(InstanceError, match="at least 1e-06"):
        parse_instance(data, "mem")


@pytest.mark.parametrize("target", ["bargaining/", "task-exchange/", "games/", ""])
def test_five_thousand_character_scenario_name(target: str) -> None:
    text = _fails(["run", target + "n" * 5000, "-a", "a,b"], "n" * 40)
    assert "n" * 300 not in text


def test_five_thousand_character_name_inside_files(tmp_path: Path) -> None:
    scen = _write(tmp_path / "long.yaml", BUYER_SELLER.replace("name: buyer-seller",
                                                               "name: " + "n" * 5000))
    text = _fails(["analyze", str(scen)], "name", "5000 characters")
    assert "n" * 300 not in text
    spec = _write(tmp_path / "spec.yaml", "name: " + "n" * 5000 + "\ndomain: bargaining\n"
                  "scenarios: [buyer-seller]\nagents: [[boulware, conceder]]\n")
    assert "n" * 300 not in _fails(["bench", str(spec), "--dry-run"], "name")
    spec = _write(tmp_path / "spec2.yaml", "name: ok\ndomain: bargaining\nscenarios: ["
                  + "n" * 5000 + "]\nagents: [[boulware, conceder]]\n")
    assert "n" * 300 not in _fails(["bench", str(spec), "--dry-run"], "scenarios")


@pytest.mark.parametrize("old, new, key", [
    ("weights:", "wieghts:", "did you mean 'weights'"),
    ("batna: 0.4", "bATNA: 0.4", "did you mean 'batna'"),
    ("issues:", "isues:", "did you mean 'issues'"),
])
def test_unknown_key_in_scenario(tmp_path: Path, old: str, new: str, key: str) -> None:
    scen = _write(tmp_path / "typo.yaml", BUYER_SELLER.replace(old, new, 1))
    _fails(["analyze", str(scen)], str(scen), "unknown key", key)


def test_unknown_keys_in_every_scenario_format(tmp_path: Path) -> None:
    game = _write(tmp_path / "g.yaml", PRISONERS + "\nplayer: [x]\n")
    _fails(["games", "solve", str(game)], "unknown key", "did you mean 'players'")
    te = _write(tmp_path / "te.yaml", TE_SCENARIO.replace("turn_limit:", "turn_limt:"))
    _fails(["run", f"task-exchange/{te}", "-a", "utility-aware,utility-aware"],
           "turn_limt", "did you mean 'turn_limit'")
    data = json.loads(TASKS.read_text())
    data["private_resource"] = data.pop("private_resources")
    inst = _write(tmp_path / "inst.json", json.dumps(data))
    _fails(["deliberation", "solve", str(inst)], "did you mean 'private_resources'")


@pytest.mark.parametrize("where, line", [("top", "sede: 3"), ("llm", "llm: {cach: x.db}"),
                                         ("sweep", "sweeps: [{domian: bargaining}]")])
def test_unknown_keys_in_bench_files(tmp_path: Path, where: str, line: str) -> None:
    spec = _write(tmp_path / "typo.yaml", "name: typo\ndomain: bargaining\nscenarios: "
                  f"[buyer-seller]\nagents: [[boulware, conceder]]\n{line}\n")
    _fails(["bench", str(spec), "--dry-run"], str(spec), "unknown key", "did you mean")


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_dond_file(tmp_path: Path, content: str) -> None:
    from accord.domains.deal_or_no_deal.load import DataFormatError, load_split

    data = _write(tmp_path / "empty.txt", content)
    _fails(["dond", "stats", "--data", str(data)], str(data), "no dialogues")
    with pytest.raises(DataFormatError, match="no dialogues"):
        load_split(data)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1"])
def test_wall_clock_must_be_finite_and_positive(value: str) -> None:
    _fails(["run", "bargaining/buyer-seller", "-a", "boulware,conceder",
            f"--wall-clock={value}"], "--wall-clock")


# -- finding 7 (part): two benches started at once on one store --------------------------

def test_two_benches_at_once_on_one_store(tmp_path: Path) -> None:
    """Both proceed (one after the other) or the second says "store busy"; never the old
    "table meta already exists"."""
    spec = _write(tmp_path / "race.yaml", "name: race\ndomain: bargaining\nscenarios: "
                  "[buyer-seller]\nagents: [[boulware, conceder]]\nseeds: 2\n")
    for attempt in range(3):
        store = tmp_path / f"race{attempt}.db"
        cmd = [sys.executable, "-m", "accord", "bench", str(spec), "--out", str(store),
               "--quiet"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in procs]
        for code, err in results:
            assert "Traceback" not in err and "already exists" not in err, err
            assert code == 0 or (code == 2 and "store busy" in err), (code, err)
        assert any(code == 0 for code, _ in results)
