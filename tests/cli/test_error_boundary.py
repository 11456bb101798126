"""Issue 24, item 3: no traceback reaches a user.

Each finding of the hostile run is a regression test: the command ends with exit 2 and one
clear message (never exit 1 with a Python traceback), and a ``--json`` command prints
exactly one JSON document - the error document ``{"error": {...}}`` when it fails. The
boundary's own rules are tested too: internal errors exit 1 with a one-line reason, and
the traceback appears only with ``--debug`` or ``ACCORD_DEBUG=1``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

SRC = Path(__file__).resolve().parents[2] / "src" / "accord"
MENU = SRC / "domains/deliberation/data/instances/menu-numeric/00.json"

runner = CliRunner()


def invoke(args: list[str], env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, args, env={"ACCORD_DEBUG": "", "COLUMNS": "200", **(env or {})})


def clean_failure(args: list[str], *fragments: str, code: int = 2) -> Any:
    """Run ``accord ARGS``; assert the exit code, no traceback, a message with
    ``fragments`` on stderr and, under ``--json``, one JSON error document on stdout."""
    res = invoke(args)
    assert res.exit_code == code, (res.exit_code, res.stdout[-2000:], res.stderr[-2000:])
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    text = " ".join(res.stderr.split())
    for frag in fragments:
        assert frag in text, (frag, text)
    if "--json" in args:
        doc = json.loads(res.stdout)  # exactly one document: json.loads refuses two
        assert set(doc) == {"error"}, doc
        assert doc["error"]["exit"] == code and doc["error"]["message"]
    return res


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A healthy demo store to damage."""
    path = tmp_path_factory.mktemp("stores") / "demo.db"
    res = invoke(["bench", "demo", "--out", str(path), "--json", "--quiet"])
    assert res.exit_code == 0, res.stderr
    return path


def damaged_copy(store: Path, folder: Path, page: int) -> Path:
    """``store`` with one page (1-based) overwritten by 0xff bytes."""
    raw = bytearray(store.read_bytes())
    size = 4096
    raw[(page - 1) * size:page * size] = b"\xff" * size
    out = folder / f"damaged-{page}.db"
    out.write_bytes(bytes(raw))
    return out


def last_page(store: Path) -> int:
    return store.stat().st_size // 4096


# -- findings: corrupt or foreign stores ------------------------------------------------

STORE_COMMANDS = [
    ["results", "{s}", "--layout", "task-exchange"],
    ["results", "{s}", "--json"],
    ["task-exchange", "tables", "{s}", "--json"],
    ["approve", "{s}", "abc", "--json"],
    ["show", "{s}", "abc", "--json"],
    ["report", "{s}", "--out", "{d}/r.html"],
]


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_damaged_store_is_a_clear_error(args: list[str], store: Path,
                                          tmp_path: Path) -> None:
    bad = damaged_copy(store, tmp_path, last_page(store))  # an episode page
    argv = [a.replace("{s}", str(bad)).replace("{d}", str(tmp_path)) for a in args]
    clean_failure(argv, "store damaged", f"accord store check {bad}")


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_foreign_database_is_not_an_accord_store(args: list[str], tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:  # the 'no such table: episodes' of the report
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('schema', '2')")
    conn.close()
    argv = [a.replace("{s}", str(foreign)).replace("{d}", str(tmp_path)) for a in args]
    clean_failure(argv, f"{foreign} is not an accord store")


def test_garbage_is_not_an_accord_store(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database " * 400)
    clean_failure(["results", str(junk), "--json"], "is not an accord store")


# -- findings: file inputs ---------------------------------------------------------------

def test_task_exchange_prompt_state_on_an_invalid_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nroles: 5\n")
    clean_failure(["task-exchange", "prompt", str(bad), "--state"], "unknown key 'roles'")


def test_task_exchange_prompt_unknown_role() -> None:
    clean_failure(["task-exchange", "prompt", "competitive", "--role", "Nobody", "--state"],
                  "unknown role 'Nobody'")


@pytest.mark.parametrize("value", [[1, 2], 3.5, None, "x"])
def test_deliberation_run_on_an_instance_with_the_wrong_types(value: Any,
                                                              tmp_path: Path) -> None:
    data = json.loads(MENU.read_text())
    data["observations"]["agent_1"]["ingredients"] = value if value != [1, 2] else 3.5
    data["observations"]["agent_0"]["guests"] = value
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    clean_failure(["deliberation", "run", "menu-numeric", "-i", str(path), "--json"],
                  "observations.agent_")


def test_deliberation_run_on_a_list_where_a_mapping_is_expected(tmp_path: Path) -> None:
    data = json.loads(MENU.read_text())
    data["observations"]["agent_1"] = ["pasta"]
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    clean_failure(["deliberation", "run", "menu-numeric", "-i", str(path), "--json"],
                  "expected an object/mapping")


@pytest.mark.parametrize("content", [b"", b"\xff\xfe garbage", b"<input> 1 2 3 </input>\n",
                                     b"not a dond line\n" * 20])
def test_dond_meta_on_bad_data_files(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(content)
    clean_failure(["dond", "meta", "--data", str(path), "--limit", "1", "--json"])


def test_human_in_a_bench_spec_is_refused_before_running(tmp_path: Path) -> None:
    spec = tmp_path / "h.yaml"
    spec.write_text("name: h\ndomain: bargaining\nscenarios: [split]\n"
                    "agents: [[human, boulware]]\nseeds: 1\n")
    res = clean_failure(["bench", str(spec), "--json", "--out", str(tmp_path / "h.db")],
                        "agent 'human' needs a person at a seat", "h.yaml:4")
    assert not (tmp_path / "h.db").exists()  # refused at plan time: nothing ran
    assert "AgentSpecError" not in res.stdout


# -- findings: --out onto special paths ---------------------------------------------------

OUT_COMMANDS = [
    ["run", "bargaining/split", "--agents", "boulware,conceder", "--json", "--out", "{o}"],
    ["results", "{s}", "--out", "{o}"],
    ["report", "{s}", "--out", "{o}"],
]
SPECIAL = {
    "full disk": ("/dev/full", "No space left on device"),
    "name too long": ("{d}/" + "n" * 300 + ".out", "File name too long"),
    "a folder": ("{d}", "{d}"),
    "missing parent": ("{d}/no/such/x.out", "no/such"),
}


@pytest.mark.parametrize("special", sorted(SPECIAL))
@pytest.mark.parametrize("args", OUT_COMMANDS, ids=lambda a: a[0])
def test_out_onto_special_paths(args: list[str], special: str, store: Path,
                                tmp_path: Path) -> None:
    from pathlib import Path as P

    if special == "full disk" and not P("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    target, fragment = SPECIAL[special]
    target = target.replace("{d}", str(tmp_path))
    argv = [a.replace("{o}", target).replace("{s}", str(store)) for a in args]
    res = clean_failure(argv, fragment.replace("{d}", str(tmp_path)))
    assert len(res.stderr) < 600, res.stderr  # one message (a long name is shortened)


# -- the boundary's own rules ---------------------------------------------------------------

def _explode(*args: object, **kwargs: object) -> None:
    raise TypeError("unhashable type: 'list'")


def test_an_internal_error_is_one_line_and_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.cli.run

    monkeypatch.setattr(accord.cli.run, "analyze_target", _explode)
    res = invoke(["analyze", "bargaining/split", "--json"])
    assert res.exit_code == 1
    assert "Traceback" not in res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "internal error (TypeError: unhashable type: 'list')" in lines[0]
    assert "--debug" in lines[0]
    doc = json.loads(res.stdout)
    assert doc["error"]["type"] == "internal" and doc["error"]["exception"] == "TypeError"


@pytest.mark.parametrize("how", ["--debug first", "--debug after", "ACCORD_DEBUG"])
def test_the_traceback_only_with_debug(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.cli.run

    monkeypatch.setattr(accord.cli.run, "analyze_target", _explode)
    args, env = ["analyze", "bargaining/split"], {}
    if how == "--debug first":
        args = ["--debug", *args]
    elif how == "--debug after":
        args = [*args, "--debug"]
    else:
        env = {"ACCORD_DEBUG": "1"}
    res = invoke(args, env)
    assert res.exit_code == 1
    assert "Traceback (most recent call last)" in res.stderr
    assert "TypeError: unhashable type: 'list'" in res.stderr


def test_a_usage_error_under_json_is_one_json_document() -> None:
    res = invoke(["results", "x.db", "--no-such-option", "--json"])
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert doc["error"]["type"] == "usage" and "--no-such-option" in doc["error"]["message"]


def test_a_failure_reported_by_a_command_becomes_the_json_document(tmp_path: Path) -> None:
    res = clean_failure(["results", str(tmp_path / "absent.db"), "--json"],
                        "no results store")
    assert "no results store" in json.loads(res.stdout)["error"]["message"]


def test_a_command_that_printed_its_document_gets_no_second_one(store: Path) -> None:
    res = invoke(["results", str(store), "--json"])
    assert res.exit_code == 0
    assert "error" not in json.loads(res.stdout)


def test_classify_sorts_the_project_errors() -> None:
    from accord.bench.store import StoreError
    from accord.cli.boundary import classify
    from accord.domains.bargaining.load import ScenarioError

    assert classify(ScenarioError("s.yaml", "issues", "bad"))[:2] == ("input", 2)
    assert classify(StoreError("busy"))[:2] == ("input", 2)
    assert classify(FileNotFoundError(2, "No such file or directory", "x.yaml")) == (
        "input", 2, "x.yaml: No such file or directory")
    assert classify(sqlite3.DatabaseError("database disk image is malformed"))[:2] == (
        "input", 2)
    assert classify(KeyError("k"))[:2] == ("internal", 1)
    assert classify(KeyboardInterrupt())[:2] == ("interrupted", 130)
