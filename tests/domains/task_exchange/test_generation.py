"""Pure parts of the LLM generators: score parsing, description parsing, assembly, YAML."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from accord.domains.task_exchange import ScenarioError, get_scenario, load_scenario
from accord.domains.task_exchange.generation import (
    build_scenario,
    parse_description,
    parse_score,
    scenario_to_yaml,
)
from accord.domains.task_exchange.load import DATA_DIR


def test_parse_score_forms() -> None:
    assert parse_score("<SCORE>73</SCORE>") == 73
    assert parse_score("Reasoning...\n<score> 72.5 </score>") == Fraction(145, 2)
    assert parse_score('{"score": 40}') == 40
    assert parse_score("15") == 15


@pytest.mark.parametrize(("text", "problem"), [
    ("<SCORE>high</SCORE>", "found no number"),
    ("between 20 and 30", "found 2 numbers"),
    ("<SCORE>140</SCORE>", "outside"),
])
def test_parse_score_errors(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_score(text)


def test_parse_description() -> None:
    assert parse_description('<DESCRIPTION> "Book a  flight." </DESCRIPTION>') == "Book a flight."
    with pytest.raises(ValueError, match="empty description"):
        parse_description("<DESCRIPTION> </DESCRIPTION>")


def test_build_scenario_normalises_and_round_trips(tmp_path: Path) -> None:
    coop = get_scenario("cooperative")
    pieces = [{"role": a.role, "main_task": a.main_task, "preference": a.preference,
               "raw_scores": dict(enumerate(a.raw_scores))} for a in coop.agents]
    built = build_scenario("copy", coop.universe, pieces, title="t")
    assert built.profile("Bob").utilities == coop.profile("Bob").utilities
    (tmp_path / "tasks.yaml").write_text((DATA_DIR / "tasks.yaml").read_text())
    path = tmp_path / "copy.yaml"
    path.write_text(scenario_to_yaml(built, "tasks.yaml"))
    again = load_scenario(path)
    assert again.agents == built.agents and again.name == "copy"


def test_build_scenario_errors() -> None:
    coop = get_scenario("cooperative")
    scores: dict[int, Fraction | int] = dict(enumerate(coop.profile("Alice").raw_scores))
    del scores[5]
    with pytest.raises(ScenarioError, match=r"agents\[0\]\.raw_scores: no score for masks 000101"):
        build_scenario("x", coop.universe, [{"role": "A", "main_task": "engineer_trip",
                                             "raw_scores": scores}])
    scores[5] = 101
    with pytest.raises(ScenarioError, match=r"raw_scores\[000101\]: 101 outside"):
        build_scenario("x", coop.universe, [{"role": "A", "main_task": "engineer_trip",
                                             "raw_scores": scores}])
