"""GeniusWeb JSON importer: LinearAdditiveUtilitySpace profiles (written following the
GeniusWeb format) round-trip, run and analyze as a brute force does."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from formatslib import FIXTURES, brute_force
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.bargaining import analyze, resolve_scenario, run_negotiation
from accord.domains.bargaining.load import load_scenario
from accord.formats import FormatError, import_path, write_scenario

JOBS = FIXTURES / "geniusweb" / "jobs"
runner = CliRunner()


def _gw_utility(profile: Path) -> tuple[Any, float]:
    """An independent reading of a GeniusWeb profile: sum of weight x value utility
    (numberutils linear between its points), BATNA = utility of the reservation bid."""
    space = json.loads(profile.read_text(encoding="utf-8"))["LinearAdditiveUtilitySpace"]
    weights = space["issueWeights"]

    def value_u(issue: str, v: Any) -> float:
        spec = space["issueUtilities"][issue]
        if "discreteutils" in spec:
            return float(spec["discreteutils"]["valueUtilities"].get(str(v), 0.0))
        n = spec["numberutils"]
        x = float(v)
        if not n["lowValue"] <= x <= n["highValue"]:
            return 0.0
        t = (x - n["lowValue"]) / (n["highValue"] - n["lowValue"])
        return float(n["lowUtility"] + t * (n["highUtility"] - n["lowUtility"]))

    def utility(outcome: dict[str, Any]) -> float:
        return sum(weights[i] * value_u(i, v) for i, v in outcome.items())

    bid = space.get("reservationBid")
    return utility, (utility(bid["issuevalues"]) if bid else 0.0)


def test_import_reads_profiles_and_reservation_bid() -> None:
    data = import_path("geniusweb", str(JOBS)).data
    assert data["name"] == "jobs"
    assert data["issues"] == {"salary": ["2000", "2500", "3000"], "lease car": ["yes", "no"],
                              "fte": ["0.6", "0.8", "1"]}  # a range, expanded
    jobs1, jobs2 = data["parties"]["jobs1"], data["parties"]["jobs2"]
    # BATNA = utility of the reservation bid (fte 1 names the range value "1")
    assert jobs1["batna"] == pytest.approx(0.5 * 0.5 + 0.2 * 0.2 + 0.3 * 0.0)
    assert jobs2["batna"] == 0.0  # no reservation bid
    assert jobs1["utility"]["values"]["fte"]["0.8"] == pytest.approx(0.5)
    assert jobs2["utility"]["weights"] == {"salary": 0.6, "lease car": 0.3, "fte": 0.1}


def test_round_trip_and_file_list(tmp_path: Path) -> None:
    written = write_scenario(import_path("geniusweb", str(JOBS)), tmp_path)
    from_file = load_scenario(written)
    direct = resolve_scenario(f"geniusweb:{JOBS}")
    listed = resolve_scenario(f"geniusweb:{JOBS / 'jobs1.json'},{JOBS / 'jobs2.json'}")
    assert (from_file.utility_matrix == direct.utility_matrix).all()
    assert (listed.utility_matrix == direct.utility_matrix).all()
    for i, name in enumerate(("jobs1", "jobs2")):
        utility, batna = _gw_utility(JOBS / f"{name}.json")
        assert from_file.parties[i].batna == pytest.approx(batna)
        for k in range(from_file.space.size):
            assert from_file.utility_matrix[k, i] == pytest.approx(
                utility(from_file.space.package(k)))


def test_episode_and_analysis_equal_brute_force() -> None:
    scenario = resolve_scenario(f"geniusweb:{JOBS}")
    result = asyncio.run(run_negotiation(scenario, ["boulware", "conceder"], seed=3))
    assert result.status == "agreement"
    for name, u in result.record["utilities"].items():
        assert u >= scenario.party(name).batna
    data = analyze(scenario)
    utils, batnas = zip(*(_gw_utility(JOBS / f"{n}.json") for n in ("jobs1", "jobs2")),
                        strict=True)
    pareto, nash = brute_force({i.name: i.values for i in scenario.space.issues}, utils,
                               batnas)
    assert {tuple(str(v) for v in p["outcome"].values()) for p in data["pareto"]} == pareto
    nu = data["nash"]["utilities"]
    assert (nu["jobs1"] - batnas[0]) * (nu["jobs2"] - batnas[1]) == pytest.approx(nash)


def test_cli_import_and_run() -> None:
    res = runner.invoke(app, ["run", f"geniusweb:{JOBS}", "--agents", "boulware,conceder",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["status"] == "agreement"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "jobs"
    shutil.copytree(JOBS, folder)
    return folder


def _rewrite(path: Path, change: Any) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc.get("LinearAdditiveUtilitySpace", doc))
    path.write_text(json.dumps(doc), encoding="utf-8")


def _set(*keys: str, value: Any = None, delete: bool = False) -> Any:
    def change(doc: Any) -> None:
        for k in keys[:-1]:
            doc = doc[k]
        if delete:
            del doc[keys[-1]]
        else:
            doc[keys[-1]] = value
    return change


MALFORMED = [
    ("jobs1.json", _set("issueWeights", "fte", delete=True), "issueWeights.fte",
     "missing weight"),
    ("jobs2.json", _set("issueUtilities", "salary", "discreteutils", "valueUtilities", "9999",
                        value=0.5),
     "issueUtilities.salary.discreteutils.valueUtilities.9999", "unknown value"),
    ("jobs2.json", _set("issueUtilities", "lease car", "discreteutils", "valueUtilities",
                        "yes", value="high"),
     "issueUtilities.lease car.discreteutils.valueUtilities.yes", "expected a number"),
    ("jobs1.json", _set("reservationBid", "issuevalues", "salary", value="1"),
     "reservationBid.issuevalues.salary", "unknown value"),
    ("jobs2.json", _set("issueUtilities", "fte", value={"sumutils": {}}),
     "issueUtilities.fte", "DiscreteValueSetUtilities"),
    ("jobs1.json", _set("domain", "issuesValues", "fte", "range", "step", value=0),
     "domain.issuesValues.fte.range", "positive step"),
]


@pytest.mark.parametrize(("name", "change", "element", "problem"), MALFORMED,
                         ids=[m[2] for m in MALFORMED])
def test_malformed_profile_names_file_and_element(tmp_path: Path, name: str, change: Any,
                                                  element: str, problem: str) -> None:
    folder = _copy(tmp_path)
    _rewrite(folder / name, change)
    with pytest.raises(FormatError) as err:
        import_path("geniusweb", str(folder))
    assert err.value.source.endswith(name), str(err.value)
    assert err.value.element == element and problem in err.value.problem, str(err.value)


def test_wrong_root_and_bad_json_name_the_file(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "jobs2.json").write_text('{"UtilitySpace": {}}', encoding="utf-8")
    with pytest.raises(FormatError, match=r"jobs2.json: wrong root"):
        import_path("geniusweb", str(folder))
    (folder / "jobs2.json").write_text('{"LinearAdditiveUtilitySpace": ', encoding="utf-8")
    with pytest.raises(FormatError, match=r"jobs2.json: .*invalid JSON"):
        import_path("geniusweb", str(folder))


def test_domain_file_must_match_the_profiles(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _rewrite(folder / "jobs.json", _set("issuesValues", "lease car", value={"values": ["no"]}))
    with pytest.raises(FormatError, match=r"jobs.json: issuesValues: the domain file differs"):
        import_path("geniusweb", str(folder))


def test_profiles_of_different_domains_are_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _rewrite(folder / "jobs2.json",
             _set("domain", "issuesValues", "salary",
                  value={"values": ["2000", "2500", "3000", "3500"]}))
    with pytest.raises(FormatError, match=r"jobs2.json: domain: this profile's domain"):
        import_path("geniusweb", str(folder))


def test_class_name_spelling_and_null_reservation_bid(tmp_path: Path) -> None:
    """Newer GeniusWeb files (and the ANL domains) write the value-set utilities by class
    name and may carry ``"reservationBid": null``; they import to the same scenario."""
    folder = _copy(tmp_path)

    def respell(doc: Any) -> None:
        for spec in doc["issueUtilities"].values():
            for old, new in (("discreteutils", "DiscreteValueSetUtilities"),
                             ("numberutils", "NumberValueSetUtilities")):
                if old in spec:
                    spec[new] = spec.pop(old)
        doc["reservationBid"] = None

    _rewrite(folder / "jobs2.json", respell)
    assert '"DiscreteValueSetUtilities"' in (folder / "jobs2.json").read_text(encoding="utf-8")
    assert import_path("geniusweb", str(folder)).data == import_path("geniusweb", str(JOBS)).data


def test_number_utilities_float_noise_is_written_as_zero(tmp_path: Path) -> None:
    """0.1 + (0.0 - 0.1) x (1.0 - 0.2) / (1.0 - 0.2) is -1.4e-17 in floating point, not 0;
    the scenario loader refuses a non-zero number below 1e-15, so `accord run
    geniusweb:...` failed on a profile whose line reaches utility 0 at its high value."""
    folder = _copy(tmp_path)
    _rewrite(folder / "jobs1.json", _set("issueUtilities", "fte", value={"numberutils": {
        "lowValue": 0.2, "lowUtility": 0.1, "highValue": 1.0, "highUtility": 0.0}}))
    party = import_path("geniusweb", str(folder)).data["parties"]["jobs1"]
    assert party["utility"]["values"]["fte"]["1"] == 0.0
    res = runner.invoke(app, ["analyze", f"geniusweb:{folder}", "--json"])
    assert res.exit_code == 0, res.output


def test_an_anl_domain_folder_with_its_specials_file_imports(tmp_path: Path) -> None:
    """The ANL domains (domains/domainNN/ of the ANL 2022-2023 templates) hold
    domainNN.json, profileA.json, profileB.json and specials.json, a precomputed analysis;
    the folder was refused ('specials.json: wrong root'). The analysis is left unread."""
    folder = _copy(tmp_path)
    bid = {"salary": "3000", "lease car": "yes", "fte": 0.8}
    (folder / "specials.json").write_text(json.dumps({
        "size": 18, "opposition": 0.3,
        "nash": {"bid": bid, "utility": [0.8, 0.6]},
        "kalai": {"bid": bid, "utility": [0.8, 0.6]},
        "pareto_front": [{"bid": bid, "utility": [0.8, 0.6]}]}, indent=2), encoding="utf-8")
    imported = import_path("geniusweb", str(folder))
    assert imported.data == import_path("geniusweb", str(JOBS)).data
    assert any("specials.json" in n and "not a profile" in n for n in imported.notes)
    res = runner.invoke(app, ["analyze", f"geniusweb:{folder}", "--json"])
    assert res.exit_code == 0, res.output
    (folder / "specials.json").write_text('{"size": 18}', encoding="utf-8")  # not ANL's
    with pytest.raises(FormatError, match=r"specials.json: wrong root"):
        import_path("geniusweb", str(folder))


def test_a_json_syntax_error_gives_its_line_and_column(tmp_path: Path) -> None:
    """A truncated profile said only 'invalid JSON: Unterminated string starting at',
    without the place: the parser's line and column were dropped."""
    folder = _copy(tmp_path)
    text = (folder / "jobs2.json").read_text(encoding="utf-8")
    start = text.index('"lease car"', text.index("issueUtilities"))  # the string cut open
    (folder / "jobs2.json").write_text(text[:start + 4], encoding="utf-8")
    line, column = text[:start].count("\n") + 1, start - text.rfind("\n", 0, start)
    with pytest.raises(FormatError) as err:
        import_path("geniusweb", str(folder))
    assert err.value.element == f"line {line} column {column}"
    assert str(err.value).startswith(f"{folder / 'jobs2.json'}: line {line} column ")
    assert "Unterminated string" in err.value.problem
