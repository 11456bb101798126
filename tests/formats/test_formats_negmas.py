"""accord's analysis of imported Genius domains agrees with NegMAS's (the field's
reference library) on the same utilities and reservation values.

Needs NegMAS (the ``accord[negmas]`` extra): skipped in a venv without it. NegMAS's PyPI
wheel ships no ANAC domains, so the domains are four small Genius XML folders written for
these tests (discrete and integer issues, weights that do not sum to 1, evaluations whose
largest value differs per issue, reservation values and discount factors) plus the
importer's own fixture; ``benchmarks/bench_negmas_analysis.py FOLDER`` runs the same
comparison over real ANAC folders.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from formatslib import FIXTURES

from accord.domains.bargaining import resolve_scenario

pytest.importorskip("negmas")

from accord.testing.negmas_check import compare

DOMAINS = [*sorted((FIXTURES / "genius_negmas").iterdir()), FIXTURES / "genius" / "party"]


@pytest.mark.parametrize("folder", DOMAINS, ids=lambda p: p.name)
def test_frontier_and_nash_equal_negmas(folder: Path) -> None:
    scenario = resolve_scenario(f"genius:{folder}")
    c = compare(scenario)
    # the rational Pareto frontier (NegMAS's frontier is of the rational outcomes only)
    assert c.frontier_ties_only, c.as_dict()
    assert c.frontier_size >= 3
    # the Nash point over the same reservation values
    assert c.nash_equal and c.nash_equal_same_disagreement, c.as_dict()


def test_a_float_tie_is_the_only_frontier_difference() -> None:
    """merger: seller 0.55 and 0.5499999999999999 are the same sum of decimal products;
    NegMAS compares the raw floats and keeps a point accord finds weakly dominated."""
    c = compare(resolve_scenario(f"genius:{FIXTURES / 'genius_negmas' / 'merger'}"))
    assert not c.frontier_equal and c.frontier_ties_only
    assert any("float noise" in n for n in c.notes)


def test_reservation_handling_differs_only_by_the_disagreement_point() -> None:
    """A BATNA below a party's lowest utility: NegMAS's nash_points takes max(reserved
    value, lowest utility) as the disagreement point, accord the BATNA itself; with
    NegMAS's point accord finds NegMAS's Nash point."""
    sc = resolve_scenario(f"genius:{FIXTURES / 'genius_negmas' / 'merger'}")
    sc = dataclasses.replace(sc, parties=(dataclasses.replace(sc.parties[0], batna=0.5),
                                          dataclasses.replace(sc.parties[1], batna=0.0)))
    c = compare(sc)
    assert c.accord_nash == (0.875, 0.45) and c.negmas_nash == [(0.725, 0.65)]
    assert not c.nash_equal and c.nash_equal_same_disagreement
    assert any("disagreement point" in n for n in c.notes)


def test_negmas_reader_agrees_when_the_files_need_no_normalising(tmp_path: Path) -> None:
    """Genius divides a discrete issue's evaluations by the largest one and scales the
    weights to sum 1; files already normalised read the same in NegMAS and accord."""
    dom = (FIXTURES / "genius_negmas" / "holiday" / "holiday_domain.xml").read_text()
    (tmp_path / "holiday_domain.xml").write_text(dom, encoding="utf-8")
    evals = {1: ({"Destination": [1, 0.5, 0.25, 0.75], "Lodging": [0.2, 0.6, 1],
                  "Activity": [1, 0.1, 0.4, 0.7, 0]}, (0.5, 0.3, 0.2), 0.35),
             2: ({"Destination": [0.2, 1, 0.5, 0.3], "Lodging": [1, 0.5, 0.25],
                  "Activity": [0.1, 0.6, 1, 0.5, 0.3]}, (0.2, 0.35, 0.45), 0.2)}
    values = {"Destination": ["Alps", "Coast", "City", "Lakes"],
              "Lodging": ["Tent", "Hostel", "Hotel"],
              "Activity": ["Hiking", "Museums", "Beach", "Food", "Rest"]}
    for k, (ev, weights, res) in evals.items():
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<utility_space type="ADDITIVE">\n'
                 '<objective etype="objective" index="0" name="holiday" type="objective">\n']
        for i, (name, w) in enumerate(zip(values, weights, strict=True), start=1):
            items = "".join(f'<item evaluation="{e}" index="{j}" value="{v}"/>\n' for j, (v, e)
                            in enumerate(zip(values[name], ev[name], strict=True), start=1))
            parts.append(f'<issue etype="discrete" index="{i}" name="{name}" type="discrete" '
                         f'vtype="discrete">\n{items}</issue>\n<weight index="{i}" '
                         f'value="{w}"/>\n')
        parts.append(f'</objective>\n<reservation value="{res}"/>\n</utility_space>\n')
        (tmp_path / f"holiday_party{k}.xml").write_text("".join(parts), encoding="utf-8")
    c = compare(resolve_scenario(f"genius:{tmp_path}"), tmp_path)
    assert c.loader_proportional and c.loader_pareto_equal, c.as_dict()
    assert c.frontier_ties_only and c.nash_equal


def test_negmas_reader_differences_are_reported() -> None:
    """The fixtures' evaluations need Genius's normalisation, which NegMAS's reader does not
    apply; the comparison says so rather than reporting a mismatch of the analysis."""
    folder = FIXTURES / "genius_negmas" / "holiday"
    c = compare(resolve_scenario(f"genius:{folder}"), folder)
    if not c.loader_proportional:
        assert any("NegMAS's Genius reader" in n for n in c.notes)
    assert c.frontier_ties_only and c.nash_equal  # the analysis itself agrees either way
