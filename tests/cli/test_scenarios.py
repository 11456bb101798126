"""``accord scenarios show NAME [--out FILE]``: built-in scenarios as editable files that
``accord run`` takes back."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(("name", "out", "edit"), [
    ("bargaining/buyer-seller", "my-scenario.yaml", ("batna: 0.4", "batna: 0.45")),
    ("games/stag-hunt", "hunt.yaml", None),
    ("task-exchange/competitive", "te.yaml", ("turn_limit: 10", "turn_limit: 4")),
    ("deliberation/menu-numeric/3", "menu3.json", None),
    ("deliberation/task-allocation", "tasks0.json", None),
])
def test_written_scenario_runs_as_the_message_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, out: str,
        edit: tuple[str, str] | None) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["scenarios", "show", name, "--out", out])
    assert res.exit_code == 0, res.output
    assert (tmp_path / out).is_file()
    if edit is not None:  # the copy is the one that runs, not the built-in
        text = (tmp_path / out).read_text("utf-8")
        assert edit[0] in text
        (tmp_path / out).write_text(text.replace(edit[0], edit[1]), "utf-8")
    command = res.stderr.split("run it: ", 1)[1].strip()
    argv = shlex.split(command)
    assert argv[:2] == ["accord", "run"]
    ran = runner.invoke(app, [*argv[1:], "--json"])
    assert ran.exit_code == 0, ran.output
    record = json.loads(ran.stdout)
    assert "error" not in record
    if name.startswith("bargaining"):  # the edited BATNA is the one the run used
        assert record["batna"]["buyer"] == 0.45
    if name.startswith("task-exchange"):  # the edited turn limit holds
        assert record["turns"] <= 4


def test_show_prints_the_file_without_out() -> None:
    res = runner.invoke(app, ["scenarios", "show", "bargaining/split"])
    assert res.exit_code == 0 and res.stdout.startswith("name: split")
    bare = runner.invoke(app, ["scenarios", "show", "procurement"])
    assert bare.exit_code == 0 and "name: procurement" in bare.stdout


@pytest.mark.parametrize(("name", "wanted"), [
    ("deal-or-no-deal/abc", "not files: there is no file form"),
    ("bargaining/buyer-seler", "'buyer-seller'"),
    ("nodomain/x", "unknown domain 'nodomain'"),
    ("deliberation/menu-numeric/999", "instances 0.."),
])
def test_show_refuses_clearly(name: str, wanted: str) -> None:
    res = runner.invoke(app, ["scenarios", "show", name])
    assert res.exit_code == 2 and wanted in res.output


def test_show_does_not_overwrite_or_change_the_format(tmp_path: Path) -> None:
    target = tmp_path / "s.yaml"
    target.write_text("mine", "utf-8")
    res = runner.invoke(app, ["scenarios", "show", "split", "--out", str(target)])
    assert res.exit_code == 2 and "pass --force" in res.output
    assert target.read_text("utf-8") == "mine"
    forced = runner.invoke(app, ["scenarios", "show", "split", "--out", str(target),
                                 "--force"])
    assert forced.exit_code == 0 and target.read_text("utf-8").startswith("name: split")
    wrong = runner.invoke(app, ["scenarios", "show", "split", "--out",
                                str(tmp_path / "s.json")])
    assert wrong.exit_code == 2 and "is a .yaml file" in wrong.output


def test_listing_is_unchanged() -> None:
    res = runner.invoke(app, ["scenarios", "--json"])
    assert res.exit_code == 0
    assert "buyer-seller" in json.loads(res.stdout)["domains"]["bargaining"]["scenarios"]


def test_one_domain_is_listed_in_full() -> None:
    """The table stops a domain at 12 names ("... (16 in all)") and nothing listed the rest
    (``accord scenarios games`` is no command): ``--domain`` lists every one, runnable."""
    res = runner.invoke(app, ["scenarios"])
    assert res.exit_code == 0 and "in all)" in res.stdout  # the table may wrap "(16 in all)"
    assert "accord scenarios --domain DOMAIN lists every scenario of a domain." in res.stdout
    res = runner.invoke(app, ["scenarios", "--domain", "games"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == 16 and lines[:2] == ["games/prisoners-dilemma", "games/stag-hunt"]
    assert json.loads(runner.invoke(app, ["scenarios", "-d", "games", "--json"]).stdout) == {
        "domains": {"games": {"scenarios": [x.split("/", 1)[1] for x in lines]}}}
    res = runner.invoke(app, ["scenarios", "--domain", "gams"])
    assert res.exit_code == 2 and "unknown domain 'gams' (did you mean 'games'?)" in res.output
    res = runner.invoke(app, ["scenarios", "--domain", "deal-or-no-deal"],
                        env={"ACCORD_DATA": "/nonexistent-accord-data"})
    assert res.exit_code == 2 and "accord dond download" in res.output
