"""The CLI contract of issue 2, through the real console entry point."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def test_run_json_contract():
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                              "--seed", "3", "--json"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1
    data = json.loads(lines[0])
    for key in ("status", "reason", "agreement", "utilities", "batna", "rounds", "flags"):
        assert key in data
    assert data["status"] in ("agreement", "no_deal", "error")
    assert set(data["utilities"]) == set(data["batna"]) == {"buyer", "seller"}
    if data["status"] == "agreement":
        assert data["reason"] is None and set(data["agreement"]) == {
            "price", "delivery_days", "warranty_years"}
    else:
        assert data["agreement"] is None


def test_run_transcript_and_log(tmp_path):
    log = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["run", "bargaining/split", "--agents", "linear,linear",
                              "--max-rounds", "8", "--log", str(log)])
    assert res.exit_code == 0, res.output
    assert "offers" in res.stdout and ("AGREEMENT" in res.stdout or "NO DEAL" in res.stdout)
    from accord.core import Trajectory

    assert Trajectory.read(log).events[-1].kind == "end"


def test_run_yaml_path_and_errors(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nissues: {a: [1, 2]}\nparties: {p: {batna: 0, utility: "
                    "{weights: {a: 1}, values: {a: {1: 0, 2: 1}}}}, q: {batna: 0, utility: "
                    "{weights: {a: 1}, values: {a: {1: 1, 2: 0}}}}}\n")
    res = runner.invoke(app, ["run", str(path), "--agents", "linear,linear", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["status"] == "agreement"
    res = runner.invoke(app, ["run", "bargaining/nope", "--agents", "linear,linear"])
    assert res.exit_code == 2 and "unknown bargaining scenario" in res.output
    res = runner.invoke(app, ["run", "bargaining/split", "--agents", "linear"])
    assert res.exit_code == 2 and "2 parties" in res.output
    assert "the line-up has 1 agent" in res.output and "1 agents" not in res.output


def test_analyze_json_contract():
    res = runner.invoke(app, ["analyze", "bargaining/buyer-seller", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["outcomes"] == 9 * 3 * 4
    for key in ("nash", "kalai", "kalai_smorodinsky", "max_welfare"):
        assert set(data[key]) >= {"outcome", "utilities"}
    assert data["pareto"] and all(
        set(p) == {"outcome", "utilities", "individually_rational", "below_batna"}
        for p in data["pareto"])


def test_analyze_marks_frontier_points_below_a_batna():
    """The frontier table says which Pareto-optimal outcomes a party would refuse."""
    res = runner.invoke(app, ["analyze", "bargaining/procurement"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "16 Pareto-optimal (8 of them individually rational)" in res.stdout
    assert "individually rational" in res.stdout.splitlines()[10]  # the frontier header
    row = next(ln for ln in res.stdout.splitlines() if "price=40, sla=99.9%, term_months=12" in ln)
    assert "0.963" in row and "0.220" in row and "no: vendor below BATNA" in row
    assert "8 of the 16 Pareto-optimal outcomes leave a party below its BATNA" in res.stdout


def test_run_json_utilities_carry_no_float_noise():
    res = runner.invoke(app, ["run", "bargaining/procurement", "--agents", "linear,linear",
                              "--stagnation-rounds", "0", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["status"] == "agreement"
    assert data["utilities"] == {"procurement": 0.66, "vendor": 0.59}  # was 0.5900000000000001


def test_analyze_no_ir_outcomes(tmp_path, laptop_dict):
    import yaml

    path = tmp_path / "laptop.yaml"
    path.write_text(yaml.safe_dump(laptop_dict))
    data = json.loads(runner.invoke(app, ["analyze", str(path), "--json"]).stdout)
    assert data["nash"] is None and data["kalai"] is None and data["kalai_smorodinsky"] is None
    assert data["max_welfare"]["individually_rational"] is False
    assert len(data["pareto"]) >= 1


def test_scenarios_lists_domains():
    res = runner.invoke(app, ["scenarios"])
    assert res.exit_code == 0 and "buyer-seller" in res.stdout and "bargaining" in res.stdout


def test_console_script_and_module_entry_points():
    out = subprocess.run([sys.executable, "-m", "accord", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith("accord ")


def test_demo_runs_offline():
    res = runner.invoke(app, ["demo", "--quick"])
    assert res.exit_code == 0, res.output
    assert "AGREEMENT" in res.stdout


def test_demo_dond_tour_runs_on_the_real_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The full demo's Deal-or-No-Deal section (it runs only when the data is installed)."""
    from rich.console import Console

    from accord.cli.demo import dond_tour

    base = Path(os.environ.get("ACCORD_DATA", REPO.parent / "shared" / "data"))
    if not (base / "dealornodeal" / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found under {base}")
    monkeypatch.setenv("ACCORD_DATA", str(base))
    console = Console(record=True, width=100)
    dond_tour(console)
    text = console.export_text()
    assert "skipped" not in text
    assert re.search(r"status (agreement|no_deal|error); shares", text), text[-500:]


def test_error_status_exits_1_and_still_prints_the_record():
    # the scripted agent keeps making the overlap mistake: K retries exceeded -> status error
    res = runner.invoke(app, ["run", "task-exchange/cooperative", "--agents",
                              "scripted?script=OVL*6,utility-aware", "--json"])
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "error" and out["utilities"] is None


def test_bad_agent_option_names_the_agent():
    res = runner.invoke(app, ["run", "bargaining/split", "--agents", "time-based?e=abc,linear"])
    assert res.exit_code == 2 and "time-based?e=abc" in res.output


def test_bench_replay_without_cache_is_a_usage_error(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: c\ndomain: bargaining\nscenarios: [split]\n"
                   "agents:\n  - [llm:mock/negotiator, linear]\nseeds: 1\n")
    res = runner.invoke(app, ["bench", str(cfg), "--store", str(tmp_path / "c.db"),
                              "--cache-mode", "replay", "--quiet"])
    assert res.exit_code == 2 and "needs --cache" in res.output


def test_run_takes_any_domain_and_its_params() -> None:
    """``--plugin`` registers a domain that is not installed; ``--param`` reaches any domain;
    an option the domain does not take is refused by name, not ignored."""
    out = runner.invoke(app, ["run", "testing-sleep/nap", "-a", "sleeper", "--plugin",
                              "accord.testing.sleep_domain", "-p", "outcome=no_deal",
                              "--json"])
    assert out.exit_code == 0, out.output
    rec = json.loads(out.stdout)
    assert rec["status"] == "no_deal" and rec["metrics"]["parity"] == "even"
    bad = runner.invoke(app, ["run", "testing-sleep/nap", "-a", "sleeper", "--plugin",
                              "no_such_plugin_module"])
    assert bad.exit_code == 2 and "--plugin: cannot import no_such_plugin_module" in bad.output
    games = runner.invoke(app, ["run", "games/stag-hunt", "-a", "rational,rational",
                                "--tools"])
    assert games.exit_code == 2
    assert "--tools does not apply to domain 'games' (it is for deliberation)" in games.output
    rounds = runner.invoke(app, ["run", "games/stag-hunt", "-a", "rational,rational",
                                 "--max-rounds", "2", "--json"])
    assert json.loads(rounds.stdout)["record"]["negotiation_rounds"] == 2
    typo = runner.invoke(app, ["run", "games/stag-hunt", "-a", "rational,rational", "-p",
                               "negotiation_rounds=two"])
    assert typo.exit_code == 2 and "negotiation_rounds" in typo.output
    noeq = runner.invoke(app, ["run", "games/stag-hunt", "-a", "rational", "-p", "x"])
    assert noeq.exit_code == 2 and "--param wants KEY=VALUE, got 'x'" in noeq.output


def test_scenario_errors_read_without_placeholders(tmp_path):
    """``error: nope: <scenario>: unknown ...`` and ``x.yaml: <file>: cannot read``: the
    placeholder keys are gone; a scenario of another domain is named, with its command."""
    def err(*args):
        res = runner.invoke(app, list(args))
        assert res.exit_code == 2, res.output
        return " ".join(res.output.split())

    out = err("run", "bargaining/nope", "--agents", "linear,linear")
    assert out.startswith("error: unknown bargaining scenario 'nope'") and "<" not in out
    out = err("run", str(tmp_path / "gone.yaml"), "--agents", "linear,linear")
    assert out.startswith(f"error: {tmp_path / 'gone.yaml'}: cannot read: ")
    assert err("analyze", "games/stag-hunt") == (
        "error: games/stag-hunt is a games scenario, and accord analyze reads bargaining "
        "scenarios only; for the game's equilibria and Pareto optima run: accord games solve "
        "stag-hunt")
    assert "run it with: accord run deliberation/menu-numeric --agents ..." in err(
        "analyze", "deliberation/menu-numeric")
    assert err("analyze", "nope").startswith("error: unknown bargaining scenario 'nope'")
    # the importers' placeholders too: "nowhere: <file>: no such file"
    gone = tmp_path / "nowhere"
    assert err("run", f"genius:{gone}", "--agents", "linear,linear") == \
        f"error: {gone}: no such file"
    assert err("import", "genius", str(gone)) == f"error: {gone}: no such file"
    assert err("import", "nope", str(gone)).startswith("error: nope: unknown format; known")
    assert err("run", "deliberation/menu-numerc", "--agents", "share,share") == (
        "error: unknown deliberation setting 'menu-numerc' (did you mean 'menu-numeric'?); "
        "known: menu-numeric, menu-semantic, task-allocation")  # was a Python list
    assert err("deliberation", "solve", str(tmp_path / "gone.json")).startswith(
        f"error: {tmp_path / 'gone.json'}: cannot read: ")


def test_analyze_names_the_points_in_words_and_flags_the_welfare_fallback(tmp_path):
    """The point column read ``kalai_smorodinsky`` and ``max_welfare``; with no individually
    rational outcome the max-welfare row showed an outcome below a BATNA while the closing
    line said every point was chosen among individually rational outcomes."""
    path = tmp_path / "noir.yaml"
    path.write_text("name: noir\nissues: {a: [1, 2]}\nparties:\n"
                    "  p: {batna: 0.9, utility: {weights: {a: 1}, values: {a: {1: 0, 2: 1}}}}\n"
                    "  q: {batna: 0.9, utility: {weights: {a: 1}, values: {a: {1: 1, 2: 0}}}}\n")
    res = runner.invoke(app, ["analyze", str(path)], env={"COLUMNS": "150"})
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "│ Kalai-Smorodinsky │ none (no individually rational outcome)" in out
    assert re.search(r"│ max welfare │ a=[12] \(over all outcomes: none is individually "
                     r"rational\) │", out)
    assert "individually rational outcomes only (max welfare, when there is none, among " \
           "all)." in out
    assert "kalai_smorodinsky" not in out and "max_welfare" not in out
    res = runner.invoke(app, ["analyze", "bargaining/buyer-seller"], env={"COLUMNS": "150"})
    out = " ".join(res.stdout.split())
    assert "│ Nash │" in out and "over all outcomes" not in out
    assert "individually rational outcomes only." in out
