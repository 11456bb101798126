"""Scenario model and data files: universe, masks, normalisation, paper values."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from accord.domains.task_exchange import (
    ScenarioError,
    builtin_scenarios,
    get_scenario,
    load_scenario,
)
from accord.domains.task_exchange.load import DATA_DIR, SCENARIO_DIR, load_universe
from accord.domains.task_exchange.masks import complement, format_mask, parse_mask
from accord.domains.task_exchange.metrics import initial_row
from accord.domains.task_exchange.scenario import normalise_scores

# one cue per atomic task (bit order): every description must name exactly its tasks
CUES = [r"Software Developer (position|role|job(?! interview))", r"alarm",
        r"video[- ]conferencing", r"flight", r"\bnot(e|es|ing)\b", r"Software Engineer"]


def test_builtin_scenarios_are_the_papers_two() -> None:
    assert builtin_scenarios() == ["competitive", "cooperative"]


def test_universe_has_64_unique_descriptions_matching_their_masks() -> None:
    uni = load_universe(DATA_DIR / "tasks.yaml")
    assert uni.n == 6 and len(uni.descriptions) == 64
    assert len(set(uni.descriptions)) == 64
    for mask, text in enumerate(uni.descriptions):
        named = sum(1 << i for i, cue in enumerate(CUES) if re.search(cue, text, re.I))
        assert named == mask, f"{format_mask(mask, 6)}: {text}"
        assert uni.mask_of(text) == mask


def test_main_tasks_and_paper_descriptions() -> None:
    uni = get_scenario("cooperative").universe
    assert uni.main_task("developer_job").mask == 0b000111
    assert uni.main_task("engineer_trip").mask == 0b111000
    # Figure 3 / Figure 5 / Figure 9 texts and masks
    assert uni.mask_of("Book a flight from San Francisco to New York on July 30, 2023.") == 8
    assert uni.description(7).startswith("Apply for the Software Developer position, set an alarm")
    assert uni.description(0b010011).startswith("Apply for the Software Developer job, set an")
    assert uni.atomic[4].call.startswith("take_note(")


def test_masks_and_complements() -> None:
    assert complement(0b111000, 6) == 0b000111
    assert complement(0, 6) == 63
    assert parse_mask("000111", 6) == 7
    with pytest.raises(ValueError, match="6 characters"):
        parse_mask("0111", 6)
    uni = get_scenario("cooperative").universe
    for m in range(64):  # complement of a complement, and they partition the universe
        c = complement(m, uni.n)
        assert m & c == 0 and m | c == uni.full


def test_normalisation_by_each_agents_maximum() -> None:
    assert normalise_scores([0, 45, 90]) == (0, Fraction(1, 2), 1)
    assert normalise_scores([0, 0]) == (0, 0)
    assert normalise_scores([0.5, 1.0]) == (Fraction(1, 2), 1)
    coop = get_scenario("cooperative")
    bob = coop.profile("Bob")
    assert max(bob.raw_scores) == 90 and max(bob.utilities) == 1
    assert bob.utilities[7] == Fraction(63, 90)


def test_figure_5_and_7_utilities() -> None:
    coop = get_scenario("cooperative")
    alice = {m: float(coop.utility("Alice", m)) for m in (1, 2, 6, 7, 8)}
    assert alice == {1: 1.0, 2: 0.10, 6: 0.15, 7: 0.75, 8: 0.05}


@pytest.mark.parametrize(("name", "alice", "bob", "sw", "l2"), [
    ("cooperative", 0.75, 0.70, 1.45, 0.32),
    ("competitive", 0.58, 0.25, 0.83, 0.028),
])
def test_table_1c_initial_utilities(name: str, alice: float, bob: float, sw: float,
                                    l2: float) -> None:
    row = initial_row(get_scenario(name))
    assert row["utilities"] == pytest.approx({"Alice": alice, "Bob": bob})
    assert row["social_welfare"] == pytest.approx(sw)
    assert round(row["l2_to_pareto"], 3 if l2 < 0.1 else 2) == l2


def test_private_view_holds_only_own_utilities() -> None:
    coop = get_scenario("cooperative")
    view = coop.view("Alice")
    assert view.utilities == coop.profile("Alice").utilities
    assert view.utilities != coop.profile("Bob").utilities
    assert view.own_initial == 0b111000 and view.partner == "Bob"
    assert "Bob" not in view.preference


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tasks.yaml").write_text((DATA_DIR / "tasks.yaml").read_text())
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    return path


def test_loader_errors_name_file_key_and_problem(tmp_path: Path) -> None:
    good = (SCENARIO_DIR / "cooperative.yaml").read_text().replace("../tasks.yaml", "tasks.yaml")
    path = _write(tmp_path, good.replace('"000111":  63', '"000111": 163'))
    with pytest.raises(ScenarioError, match=r"bad\.yaml: agents\[1\]\.raw_scores\['000111'\]: "
                                            r"raw score 163 outside"):
        load_scenario(path)
    path = _write(tmp_path, good.replace('      "000101":  82  # apply_SD+install\n', ""))
    with pytest.raises(ScenarioError, match=r"agents\[0\]\.raw_scores: no score for 1 masks: "
                                            "000101"):
        load_scenario(path)
    path = _write(tmp_path, good.replace("main_task: engineer_trip", "main_task: nowhere"))
    with pytest.raises(ScenarioError, match=r"agents\[0\]\.main_task: unknown main task"):
        load_scenario(path)
    path = _write(tmp_path, good.replace("main_task: engineer_trip", "main_task: developer_job"))
    with pytest.raises(ScenarioError, match="must split the atomic tasks exactly"):
        load_scenario(path)
    path = _write(tmp_path, good.replace("turn_limit: 10", "turn_limit: [10"))
    with pytest.raises(ScenarioError, match=r"bad\.yaml: line \d+: invalid YAML"):
        load_scenario(path)


def test_universe_errors(tmp_path: Path) -> None:
    text = (DATA_DIR / "tasks.yaml").read_text()
    path = tmp_path / "tasks.yaml"
    path.write_text(text.replace('  "010000": ', '  "01000": '))
    with pytest.raises(ScenarioError, match=r"composites\['01000'\]: mask '01000' must be 6"):
        load_universe(path)
    path.write_text(text.replace("Book a flight from San Francisco to New York on July 30, "
                                 "2023, and install the video conferencing tool.",
                                 "Book a flight from San Francisco to New York on July 30, "
                                 "2023."))
    with pytest.raises(ScenarioError, match=r"composites\['001100'\]: same description as "
                                            r"composites\['001000'\]"):
        load_universe(path)


def test_unknown_scenario_lists_builtins() -> None:
    with pytest.raises(ScenarioError, match=r"unknown task-exchange scenario .*known: "
                       r"competitive, cooperative"):
        get_scenario("nope")
