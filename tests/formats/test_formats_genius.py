"""Genius XML importer: real-format files (written following Genius's published format)
round-trip to accord scenario files, run an episode and analyze as a brute force does."""

from __future__ import annotations

import asyncio
import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from formatslib import FIXTURES, brute_force
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.bargaining import analyze, resolve_scenario, run_negotiation
from accord.domains.bargaining.load import ScenarioError, load_scenario
from accord.formats import FormatError, import_path, write_scenario
from accord.formats.base import MAX_FILE_BYTES

PARTY = FIXTURES / "genius" / "party"
runner = CliRunner()


def _genius_utility(profile: Path) -> tuple[Any, float]:
    """An independent reading of a Genius profile: evaluation / max evaluation per
    discrete issue, Genius's linear evaluator (offset + slope x (value - lowerbound),
    clamped to [0, 1]), weights over their sum."""
    root = ET.parse(profile).getroot()
    obj = root.find("objective")
    assert obj is not None
    weights = {w.get("index"): float(w.get("value", "")) for w in obj.iter("weight")}
    total = sum(weights.values())
    parts: list[tuple[str, float, Callable[..., float]]] = []
    for issue in obj.iter("issue"):
        w = weights[issue.get("index")] / total
        ev = issue.find("evaluator")
        if ev is not None:
            slope, offset = float(ev.get("slope", "")), float(ev.get("offset", ""))
            low = int(issue.get("lowerbound", ""))
            parts.append((str(issue.get("name")), w, lambda v, s=slope, o=offset, lb=low:
                          min(1.0, max(0.0, o + s * (int(v) - lb)))))
        else:
            evals = {i.get("value"): float(i.get("evaluation", "")) for i in issue.iter("item")}
            top = max(evals.values())
            parts.append((str(issue.get("name")), w, lambda v, e=evals, t=top: e[str(v)] / t))
    res = root.find("reservation")
    reservation = float(res.get("value", "")) if res is not None else 0.0

    def utility(outcome: dict[str, Any]) -> float:
        return sum(w * f(outcome[name]) for name, w, f in parts)

    return utility, reservation


def test_import_reads_domain_and_profiles() -> None:
    imp = import_path("genius", str(PARTY))
    data = imp.data
    assert data["name"] == "party"
    assert data["issues"] == {"Food": ["Chips and Nuts", "Finger-Food", "Catering"],
                              "Music": ["MP3", "DJ", "Band"], "Hours": [1, 2, 3, 4]}
    p1, p2 = data["parties"]["party1_utility"], data["parties"]["party2_utility"]
    assert p1["batna"] == 0.3 and p2["batna"] == 0.25  # reservation value -> BATNA
    # evaluations over the issue's maximum; weights 2:1:1 scaled to sum 1
    assert p1["utility"]["values"]["Food"] == {"Chips and Nuts": 0.25, "Finger-Food": 0.5,
                                               "Catering": 1.0}
    assert p2["utility"]["weights"] == {"Food": 0.5, "Music": 0.25, "Hours": 0.25}
    assert p2["utility"]["values"]["Hours"] == {1: 0.25, 2: 1.0, 3: 0.75, 4: 0.5}
    # Genius's linear evaluator counts from the lower bound and clamps to [0, 1]
    assert p1["utility"]["values"]["Hours"] == {1: 0.1, 2: 0.5, 3: 0.9, 4: 1.0}
    # the discount factor becomes the party's discount (none for a factor of 1)
    assert p1["discount"] == 0.9 and "discount" not in p2
    # Genius would use the weights 2:1:1 as written: the scaling is noted, nothing else
    assert len(imp.notes) == 1 and imp.notes[0].startswith(
        "party2_utility.xml: the issue weights sum to 4, not 1;")


def test_round_trip_through_the_bargaining_loader(tmp_path: Path) -> None:
    written = write_scenario(import_path("genius", str(PARTY)), tmp_path)
    from_file = load_scenario(written)
    direct = resolve_scenario(f"genius:{PARTY}")
    assert from_file.party_names == direct.party_names == ("party1_utility", "party2_utility")
    assert (from_file.utility_matrix == direct.utility_matrix).all()
    assert list(from_file.batnas) == [0.3, 0.25]
    # the discount factor survives the round trip (party2's 1.0 is no discount)
    assert list(from_file.discounts) == list(direct.discounts) == [0.9, 1.0]
    # the utilities are Genius's, computed here without accord's code
    for i, party in enumerate(sorted(PARTY.glob("party*_utility.xml"))):
        utility, reservation = _genius_utility(party)
        assert from_file.parties[i].batna == reservation
        for k in range(from_file.space.size):
            package = from_file.space.package(k)
            assert from_file.utility_matrix[k, i] == pytest.approx(utility(package))


def test_explicit_file_list_equals_the_folder() -> None:
    files = ",".join(str(PARTY / n) for n in
                     ("party_domain.xml", "party1_utility.xml", "party2_utility.xml"))
    a, b = import_path("genius", files).data, import_path("genius", str(PARTY)).data
    assert a["issues"] == b["issues"] and a["parties"] == b["parties"]
    assert a["name"] == "party_domain"  # a file list is named after its domain file


def test_episode_runs_with_concession_agents() -> None:
    scenario = resolve_scenario(f"genius:{PARTY}")
    result = asyncio.run(run_negotiation(scenario, ["boulware", "conceder"], seed=0))
    assert result.status == "agreement"
    agreement = result.record["agreement"]
    assert set(agreement) == {"Food", "Music", "Hours"}
    for name, u in result.record["utilities"].items():
        assert u >= scenario.party(name).batna


def test_analysis_equals_brute_force() -> None:
    scenario = resolve_scenario(f"genius:{PARTY}")
    data = analyze(scenario)
    profiles = sorted(PARTY.glob("party*_utility.xml"))
    utils, batnas = zip(*(_genius_utility(p) for p in profiles), strict=True)
    issues = {i.name: i.values for i in scenario.space.issues}
    pareto, nash = brute_force(issues, utils, batnas)
    got = {tuple(str(v) for v in p["outcome"].values()) for p in data["pareto"]}
    assert got == pareto and len(pareto) > 1
    nu = data["nash"]["utilities"]
    assert (nu["party1_utility"] - 0.3) * (nu["party2_utility"] - 0.25) == pytest.approx(nash)


def test_cli_import_writes_a_loadable_file(tmp_path: Path) -> None:
    res = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(tmp_path),
                              "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["outcomes"] == 36 and out["parties"] == ["party1_utility", "party2_utility"]
    assert [n.split(":")[0] for n in out["notes"]] == ["party2_utility.xml"]  # weights 2:1:1
    text = Path(out["written"]).read_text(encoding="utf-8")
    assert "discount: 0.9" in text
    written = load_scenario(out["written"])
    assert written.space.size == 36
    assert [p.discount for p in written.parties] == [0.9, 1.0]
    again = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(tmp_path)])
    assert again.exit_code == 2 and "exists" in again.output and "--force" in again.output
    human = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(tmp_path),
                                "--force"])
    assert human.exit_code == 0 and "36 outcomes" in human.output
    assert " ".join(human.output.split()).count("note:") == 1


def test_cli_import_takes_max_outcomes_as_its_error_advises(tmp_path: Path) -> None:
    """A domain over the cap is refused with "raise it with --max-outcomes N": accord
    import takes that option (it had none, so the advice led nowhere)."""
    small = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(tmp_path),
                                "--max-outcomes", "10"])
    assert small.exit_code == 2 and "--max-outcomes" in small.output
    assert not list(tmp_path.iterdir())  # nothing written
    res = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(tmp_path),
                              "--max-outcomes", "36", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["outcomes"] == 36


def test_cli_import_out_onto_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x", encoding="utf-8")
    res = runner.invoke(app, ["import", "genius", str(PARTY), "--out", str(blocker)])
    assert res.exit_code == 1 and "--out" in res.output and "cannot write" in res.output


def test_cli_run_and_analyze_take_format_prefix() -> None:
    res = runner.invoke(app, ["run", f"genius:{PARTY}", "--agents", "boulware,conceder",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["status"] == "agreement"
    ana = runner.invoke(app, ["analyze", f"genius:{PARTY}", "--json"])
    assert ana.exit_code == 0, ana.output
    assert json.loads(ana.stdout)["outcomes"] == 36


def test_cli_unknown_format_names_the_known_ones(tmp_path: Path) -> None:
    res = runner.invoke(app, ["import", "nosuch", str(PARTY), "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "unknown format" in res.output and "genius" in res.output


def test_bench_spec_accepts_format_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "b.yaml"
    spec.write_text(f"name: g\ndomain: bargaining\nscenarios: ['genius:{PARTY}']\n"
                    "agents:\n  - [boulware, conceder]\nseeds: 2\n", encoding="utf-8")
    res = runner.invoke(app, ["bench", str(spec), "--quiet"])
    assert res.exit_code == 0, res.output
    listed = runner.invoke(app, ["results", str(tmp_path / "runs" / "g.db"), "--format",
                                 "json"])
    episodes = json.loads(listed.stdout)["episodes"]
    assert len(episodes) == 2 and {e["status"] for e in episodes} == {"done"}


# -- malformed files: a clear error naming the file and the element ---------------------

def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "dom"
    shutil.copytree(PARTY, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


MALFORMED = [
    ("party1_utility.xml", '<weight index="2" value="0.3"/>', "",
     "weight of issue 'Music'", "missing weight"),
    ("party1_utility.xml", 'value="Band"/>', 'value="Orchestra"/>',
     "issue 'Music' item 'Orchestra'", "unknown item"),
    ("party2_utility.xml", 'evaluation="6"', 'evaluation="six"',
     "issue 'Food' item 'Finger-Food' evaluation", "not a number"),
    ("party2_utility.xml", '<item evaluation="5" index="1" value="MP3"/>', "",
     "issue 'Music' item 'MP3'", "missing evaluation"),
    ("party1_utility.xml", '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
     '<!DOCTYPE x [<!ENTITY a "aaaa">]>', "<!DOCTYPE>", "refused"),
    ("party1_utility.xml", '<utility_space type="ADDITIVE">',
     '<utility_space type="ADDITIVE"><!ENTITY a "b">', "<!ENTITY>", "refused"),
    ("party_domain.xml", "negotiation_template>", "template>", "<template>",
     "wrong root"),
    ("party_domain.xml", 'upperbound="4" vtype', 'upperbound="x" vtype',
     "issue 'Hours' upperbound", "not a number"),
    ("party2_utility.xml", '<reservation value="0.25"/>', '<reservation value="nan"/>',
     "reservation value", "not a finite number"),
    ("party1_utility.xml", '<weight index="3"', '<weight index="9"',
     "weight index='9'", "no issue has this index"),
]


@pytest.mark.parametrize(("name", "old", "new", "element", "problem"), MALFORMED,
                         ids=[m[4] + "-" + m[3] for m in MALFORMED])
def test_malformed_file_names_file_and_element(tmp_path: Path, name: str, old: str, new: str,
                                               element: str, problem: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder / name, old, new)
    with pytest.raises(FormatError) as err:
        import_path("genius", str(folder))
    assert err.value.source.endswith(name), str(err.value)
    assert err.value.element == element and problem in err.value.problem, str(err.value)


def test_wrong_root_when_no_file_is_a_domain(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "party_domain.xml").unlink()
    with pytest.raises(FormatError, match="expected exactly one domain file"):
        import_path("genius", str(folder))


def test_one_profile_is_not_a_negotiation(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "party2_utility.xml").unlink()
    with pytest.raises(FormatError, match="two or more profile files, found 1"):
        import_path("genius", str(folder))


def test_huge_file_is_refused_before_parsing(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    with (folder / "party1_utility.xml").open("a", encoding="utf-8") as f:
        f.write("<!--" + "x" * (MAX_FILE_BYTES + 1) + "-->")
    with pytest.raises(FormatError) as err:
        import_path("genius", str(folder))
    assert err.value.source.endswith("party1_utility.xml") and err.value.element == "<file>"


def test_run_target_with_a_bad_file_is_a_scenario_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "party1_utility.xml", '<weight index="1" value="0.5"/>', "")
    with pytest.raises(ScenarioError, match=r"party1_utility\.xml: weight of issue 'Food'"):
        resolve_scenario(f"genius:{folder}")
    res = runner.invoke(app, ["analyze", f"genius:{folder}"])
    assert res.exit_code == 2 and "missing weight" in res.output


def test_integer_evaluator_by_lowest_and_highest_utility(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    text = (folder / "party2_utility.xml").read_text(encoding="utf-8")
    start = text.index('<item evaluation="1" value="1"/>')
    end = text.index('</issue>\n<weight index="3"')
    (folder / "party2_utility.xml").write_text(
        text[:start] + '<evaluator ftype="linear" utilLowestValue="1.0" utilHighestValue="0.4"/>\n'
        + text[end:], encoding="utf-8")
    hours = import_path("genius", str(folder)).data["parties"]["party2_utility"]
    assert hours["utility"]["values"]["Hours"] == pytest.approx({1: 1.0, 2: 0.8, 3: 0.6, 4: 0.4})


def test_linear_evaluator_is_clamped_to_the_unit_interval(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder / "party1_utility.xml", 'slope="0.4" offset="0.1"', 'slope="0.5" offset="-0.2"')
    values = import_path("genius", str(folder)).data["parties"]["party1_utility"]
    assert values["utility"]["values"]["Hours"] == pytest.approx({1: 0.0, 2: 0.3, 3: 0.8, 4: 1.0})


def test_a_weight_on_the_objective_itself_is_not_an_issue_weight(tmp_path: Path) -> None:
    """ANAC 2012's Fitness profiles weigh the root objective (<weight index="1"
    value="1.0"/> with objective index 1); that is not a missing issue, and the issues'
    weights are read as before."""
    folder = _copy(tmp_path)
    _edit(folder / "party1_utility.xml", "</objective>", '<weight index="0" value="1.0"/>\n'
          "</objective>")
    got = import_path("genius", str(folder)).data["parties"]["party1_utility"]
    want = import_path("genius", str(PARTY)).data["parties"]["party1_utility"]
    assert got == want


@pytest.mark.parametrize(("value", "expect"), [("0.0", None), ("1", None), ("0.5", 0.5),
                                               ("1.5", "not in [0, 1]"), ("-0.1", "not in")])
def test_discount_factor_values(tmp_path: Path, value: str, expect: object) -> None:
    """Genius reads a factor of 0 or 1 as no discount; outside [0, 1] is an error."""
    folder = _copy(tmp_path)
    _edit(folder / "party1_utility.xml", '<discount_factor value="0.9"/>',
          f'<discount_factor value="{value}"/>')
    if isinstance(expect, str):
        with pytest.raises(FormatError, match=r"discount_factor value.*" + expect.replace(
                "[", r"\[").replace("]", r"\]")):
            import_path("genius", str(folder))
        return
    party = import_path("genius", str(folder)).data["parties"]["party1_utility"]
    assert party.get("discount") == expect


def test_an_issue_whose_evaluations_are_all_zero_is_worth_zero(tmp_path: Path) -> None:
    """Genius's EvaluatorDiscrete.normalize gives 0 when an issue's largest evaluation is
    (nearly) 0, and ANAC 2015's zoning-plan profile Group4_util1.xml scores its issue
    'Park' 0 in every value: the domain imports, the issue adds nothing to that party's
    utility, and a note says so."""
    folder = _copy(tmp_path)
    for index, value in enumerate(("2", "4", "8"), start=1):  # Food's three items
        _edit(folder / "party1_utility.xml", f'evaluation="{value}" index="{index}"',
              f'evaluation="0" index="{index}"')
    imported = import_path("genius", str(folder))
    party = imported.data["parties"]["party1_utility"]
    assert party["utility"]["values"]["Food"] == {"Chips and Nuts": 0.0, "Finger-Food": 0.0,
                                                  "Catering": 0.0}
    assert party["utility"]["values"]["Music"] == pytest.approx(
        {"MP3": 1 / 3, "DJ": 1.0, "Band": 2 / 3})
    assert any("'Food'" in n and "party1_utility.xml" in n for n in imported.notes)
    res = runner.invoke(app, ["import", "genius", str(folder), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output


def test_linear_evaluator_float_noise_is_written_as_zero(tmp_path: Path) -> None:
    """ANAC 2015's KillerRobot_util3.xml: offset 1.0 + slope -0.02040816326530612 x 49
    is 1.1e-16, not 0, in floating point; the scenario loader refuses a non-zero number
    below 1e-15, so the import was written but `accord run genius:...` and the written
    file failed. Here 0.9 - 0.3 x 3 makes the same noise."""
    folder = _copy(tmp_path)
    _edit(folder / "party1_utility.xml", 'slope="0.4" offset="0.1"', 'slope="-0.3" offset="0.9"')
    values = import_path("genius", str(folder)).data["parties"]["party1_utility"]
    assert values["utility"]["values"]["Hours"][4] == 0.0
    res = runner.invoke(app, ["import", "genius", str(folder), "--out", str(tmp_path / "o"),
                              "--json"])
    assert res.exit_code == 0, res.output
    load_scenario(json.loads(res.stdout)["written"])
    res = runner.invoke(app, ["analyze", f"genius:{folder}", "--json"])
    assert res.exit_code == 0, res.output


def test_a_number_no_scenario_file_can_hold_names_the_file(tmp_path: Path) -> None:
    """An evaluation the scenario loader would refuse as too large is an error naming the
    profile and the item, not a file written that accord cannot read; one below 1e-15
    (NegMAS's copy of ItexvsCypress has 2.8e-18) is read as 0, which it is to accord."""
    folder = _copy(tmp_path)
    _edit(folder / "party2_utility.xml", 'evaluation="6"', 'evaluation="1e300"')
    with pytest.raises(FormatError) as err:
        import_path("genius", str(folder))
    assert err.value.source.endswith("party2_utility.xml")
    assert err.value.element == "issue 'Food' item 'Finger-Food' evaluation"
    assert "out of range" in err.value.problem
    out = tmp_path / "o"
    res = runner.invoke(app, ["import", "genius", str(folder), "--out", str(out)])
    assert res.exit_code == 2 and "party2_utility.xml" in res.output
    assert not out.exists() or not any(out.iterdir())
    _edit(folder / "party2_utility.xml", 'evaluation="1e300"', 'evaluation="2.8e-18"')
    party = import_path("genius", str(folder)).data["parties"]["party2_utility"]
    assert party["utility"]["values"]["Food"]["Finger-Food"] == 0.0
    res = runner.invoke(app, ["analyze", f"genius:{folder}", "--json"])
    assert res.exit_code == 0, res.output


def test_a_nonlinear_profile_is_named_as_such(tmp_path: Path) -> None:
    """ANAC 2014's profiles are nonlinear (<utility_space type="nonlinear"> with
    hyperRectangle constraints, no weights): they were taken for domain files and the
    error was 'expected exactly one domain file, found' all three files."""
    folder = _copy(tmp_path)
    (folder / "party2_utility.xml").write_text(
        '<utility_space type="nonlinear">\n<objective index="0" name="root" '
        'type="objective" etype="objective">\n<issue index="1" name="Food" type="discrete" '
        'etype="discrete"/>\n<utility maxutility="49">\n<ufun type="PlainUfun" weight="1" '
        'aggregation="sum">\n<hyperRectangle utility="49">\n<INCLUDES index="1" min="0" '
        'max="1"/>\n</hyperRectangle>\n</ufun>\n</utility>\n</objective>\n'
        '<discount_factor value="0.5"/>\n<reservation value="0.75"/>\n</utility_space>\n',
        encoding="utf-8")
    with pytest.raises(FormatError) as err:
        import_path("genius", str(folder))
    assert err.value.source.endswith("party2_utility.xml")
    assert "nonlinear utility space" in err.value.problem
    res = runner.invoke(app, ["import", "genius", str(folder), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "party2_utility.xml" in res.output and "nonlinear" in res.output


@pytest.mark.parametrize(("weights", "noted"), [(("0.55", "0.33", "0.22"), True),
                                                (("0.50005", "0.3", "0.2"), False)])
def test_weights_not_summing_to_one_are_noted(tmp_path: Path, weights: tuple[str, ...],
                                              noted: bool) -> None:
    """Genius reads a profile's weights as written (ANAC 2016's JapanTrip_util1.xml sums
    to 1.1); accord scales them to sum 1, silently until now, and its utilities are then
    Genius's divided by the sum. The import says so when the sum is off by more than
    0.001 (not for ANAC's Laptop profiles' 1.000052)."""
    folder = _copy(tmp_path)
    for index, (old, new) in enumerate(zip(("0.5", "0.3", "0.2"), weights, strict=True), 1):
        _edit(folder / "party1_utility.xml", f'<weight index="{index}" value="{old}"/>',
              f'<weight index="{index}" value="{new}"/>')
    imported = import_path("genius", str(folder))
    party = imported.data["parties"]["party1_utility"]
    assert sum(party["utility"]["weights"].values()) == pytest.approx(1.0)
    notes = [n for n in imported.notes if n.startswith("party1_utility.xml: the issue weights")]
    assert bool(notes) == noted
    if noted:
        assert "weights sum to 1.1, not 1" in notes[0]
