"""One CLI vocabulary: shared flags, old spellings as hidden aliases, close matches, help
with examples, piped output that is never cut, inert terminal text, shipped configs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from accord import __version__
from accord.cli.main import app, command_tree
from accord.cli.render import describe_event, print_record_fields
from accord.core.trajectory import Trajectory

runner = CliRunner()


def leaves() -> list[tuple[str, Any]]:
    """``(command path, click command)`` for every leaf command of the app."""
    return [(p, cmd) for p, cmd in command_tree() if not hasattr(cmd, "list_commands")]


def test_every_command_has_an_example_and_every_option_a_help_text() -> None:
    for name, cmd in leaves():
        assert cmd.epilog and "Examples:" in cmd.epilog and "accord " in cmd.epilog, name
        for p in cmd.params:
            if getattr(p, "hidden", False) or p.name == "help":
                continue
            assert getattr(p, "help", None), f"{name}: option {p.opts} has no help"


SHARED = {"--json": None, "--out": "-o", "--quiet": "-q", "--repeat": "-n"}


def test_shared_flags_are_spelled_the_same_everywhere() -> None:
    for name, cmd in leaves():
        for p in cmd.params:
            opts = set(getattr(p, "opts", [])) | set(getattr(p, "secondary_opts", []))
            for flag, short in SHARED.items():
                if flag in opts and short is not None:
                    assert short in opts, f"{name}: {flag} without {short}"
            assert not opts & {"--output", "--log", "--store", "--dest", "--runs"} or \
                p.hidden, f"{name}: old spelling {opts} is not hidden"


def test_completion_is_on_and_help_has_no_bool_metavar() -> None:
    res = runner.invoke(app, ["--help"])
    assert "--install-completion" in res.output
    for name, _ in leaves():
        out = runner.invoke(app, [*name.split(), "--help"]).output
        assert "<bool>" not in out, name


def test_version_without_typer() -> None:
    code = ("import sys; sys.argv=['accord','--version']; from accord.cli import main; main();"
            "print('typer' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["accord", __version__, "False"]


@pytest.mark.parametrize(("args", "old", "new"), [
    (["run", "bargaining/split", "-a", "linear,linear", "--log", "{tmp}/t.jsonl"], "--log",
     "--out"),
    (["results", "{store}", "--output", "{tmp}/r.txt"], "--output", "--out"),
    (["bench", "{cfg}", "--store", "{tmp}/s.db", "-q"], "--store", "--out"),
])
def test_old_spellings_still_work_with_a_note(args: list[str], old: str, new: str,
                                              tmp_path: Path, demo_store: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: c\ndomain: bargaining\nscenarios: [split]\n"
                   "agents: [[linear, linear]]\nseeds: 1\n")
    argv = [a.format(tmp=tmp_path, store=demo_store, cfg=cfg) for a in args]
    res = runner.invoke(app, argv)
    assert res.exit_code == 0, res.output
    assert f"{old} is deprecated" in res.output and f"use {new}" in res.output
    written = Path(argv[argv.index(old) + 1])
    assert written.exists()
    both = runner.invoke(app, [*argv, new, str(tmp_path / "other")])
    assert both.exit_code == 2 and "old spelling" in both.output


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("demo")
    res = runner.invoke(app, ["bench", "demo", "--out", str(d / "demo.db"), "--quiet"])
    assert res.exit_code == 0, res.output
    return d / "demo.db"


@pytest.mark.parametrize(("args", "wanted"), [
    (["run", "bargaining/buyer-seler", "-a", "linear,linear"], "'buyer-seller'"),
    (["run", "bargaining/split", "-a", "bulware,linear"], "'boulware'"),
    (["run", "bargainin/split", "-a", "linear,linear"], "'bargaining'"),
    (["games", "solve", "prisoner"], "'prisoners-dilemma'"),
    (["run", "games/stag-hunt", "-a", "rationl,rational"], "'rational'"),
    (["deliberation", "list", "menu-numerc"], "'menu-numeric'"),
    (["run", "task-exchange/competitve", "-a", "utility-aware,utility-aware"],
     "'competitive'"),
    (["configs", "show", "dmeo"], "'demo'"),
    (["bench", "dmeo"], "'demo'"),
])
def test_unknown_names_suggest_the_close_match(args: list[str], wanted: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert f"did you mean {wanted}" in " ".join(res.output.split())


def test_unknown_layout_suggests(demo_store: Path) -> None:
    res = runner.invoke(app, ["results", str(demo_store), "--layout", "task-exchang"])
    assert res.exit_code == 2 and "did you mean 'task-exchange'" in res.output


def test_results_episodes_lists_ids_and_csv_carries_them(demo_store: Path) -> None:
    res = runner.invoke(app, ["results", str(demo_store), "--episodes", "--json"])
    eps = json.loads(res.stdout)["episodes"]
    assert len(eps) == 20 and {"id", "scenario", "agents", "status", "agreement"} <= set(eps[0])
    show = runner.invoke(app, ["show", str(demo_store), eps[3]["id"][:8]])
    assert show.exit_code == 0 and eps[3]["id"] in show.output
    csv = runner.invoke(app, ["results", str(demo_store), "-f", "csv", "--per-episode"])
    header = csv.stdout.splitlines()[0].split(",")
    assert header[0] == "id" and len(csv.stdout.splitlines()) == 21
    table = runner.invoke(app, ["results", str(demo_store), "--episodes"])
    assert all(e["id"] in table.output for e in eps)


def test_piped_output_is_never_cut(demo_store: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = subprocess.run([sys.executable, "-m", "accord", "results", str(demo_store),
                          "--episodes"], capture_output=True, text=True, env=env,
                         check=True).stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) > 80  # not wrapped at 80 columns
    assert "\x1b[" not in out  # no colour codes into a pipe
    ids = json.loads(subprocess.run(
        [sys.executable, "-m", "accord", "results", str(demo_store), "--episodes", "--json"],
        capture_output=True, text=True, env=env, check=True).stdout)["episodes"]
    for e in ids:  # each row whole on one line
        assert any(e["id"] in line and e["agents"] in line for line in lines)


def test_domain_records_print_as_readable_fields() -> None:
    res = runner.invoke(app, ["run", "task-exchange/competitive", "-a",
                              "utility-aware,utility-aware"])
    assert res.exit_code == 0, res.output
    assert "utilities.Alice" in res.output or "utilities." in res.output
    assert '{"' not in res.output  # no JSON blob in a table cell
    console = Console(record=True, width=200)
    print_record_fields(console, {"a": {"b": [1, 2], "c": None}, "d": 0.123456})
    text = console.export_text()
    assert "a.b" in text and "1, 2" in text and "a.c" in text
    assert "0.12" in text and "0.1235" not in text  # two decimals, as the web pages


EVIL = ("[link=http://evil.example]click[/link] \x1b]8;;http://evil.example\x1b\\x"
        "\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m [bold]b[/bold]\x07")


def test_text_from_a_model_is_inert_in_the_terminal() -> None:
    log = Trajectory()
    log.add(1, "seller", "move", move={"kind": "message", "text": EVIL})
    line = describe_event(next(iter(log)))
    assert line is not None
    console = Console(record=True, force_terminal=True, width=300)
    console.print(line, highlight=False)
    raw = console.export_text(styles=True, clear=False)
    assert "\x1b]8;;http://evil.example" not in raw  # no OSC-8 hyperlink
    assert "\x1b[31m" not in raw and "\x07" not in raw
    shown = console.export_text()
    assert "[link=http://evil.example]click[/link]" in shown  # markup shown literally
    assert "\\x1b]8;;http://evil.example" in shown  # escape shown as text
    assert "[bold]b[/bold]" in shown


def test_configs_list_show_copy(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["configs", "list", "--json"])
    names = {c["name"] for c in json.loads(listed.stdout)["configs"]}
    assert "demo" in names and "deliberation_table2" in names
    shown = runner.invoke(app, ["configs", "show", "demo"])
    assert "domain: bargaining" in shown.output
    res = runner.invoke(app, ["configs", "copy", "demo", str(tmp_path)])
    assert res.exit_code == 0 and (tmp_path / "demo.yaml").read_text() == shown.output
    again = runner.invoke(app, ["configs", "copy", "demo", str(tmp_path)])
    assert again.exit_code == 2 and "--force" in again.output


def test_bench_exits_1_when_every_episode_ended_in_error(tmp_path: Path) -> None:
    cfg = tmp_path / "e.yaml"
    cfg.write_text("name: e\ndomain: testing-sleep\nplugins: [accord.testing.sleep_domain]\n"
                   "scenarios: [nap]\nagents: [[sleeper]]\nparams: {outcome: error}\n"
                   "seeds: 3\n")
    res = runner.invoke(app, ["bench", str(cfg), "--out", str(tmp_path / "e.db"), "--json"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["done"] == 3 and doc["errored"] == 3
    ok = tmp_path / "ok.yaml"
    ok.write_text(cfg.read_text().replace("{outcome: error}", "{outcome: no_deal}"))
    res = runner.invoke(app, ["bench", str(ok), "--out", str(tmp_path / "ok.db"), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["errored"] == 0


@pytest.mark.parametrize("args", [
    ["deliberation", "run", "menu-numeric", "--cache-mode", "replay"],
    ["dond", "play", "--agents", "workflow,workflow", "--cache-mode", "replay"],
    ["dond", "meta", "--cache-mode", "replay"],
    ["task-exchange", "run", "competitive", "--cache-mode", "replay"],
    ["task-exchange", "generate", "--model", "mock/x", "--out", "x.yaml", "--cache-mode",
     "replay"],
    ["games", "play", "stag-hunt", "-a", "rational", "--cache-mode", "replay"],
    ["run", "bargaining/split", "-a", "linear,linear", "--cache-mode", "replay"],
])
def test_every_domain_command_refuses_replay_without_a_cache(args: list[str]) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "needs --cache" in " ".join(res.output.split())


def test_run_takes_data_for_deal_or_no_deal(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "deal-or-no-deal/test/0", "-a", "workflow,workflow",
                              "--data", str(tmp_path), "--json"])
    assert res.exit_code == 2 and str(tmp_path) in " ".join(res.output.split())
