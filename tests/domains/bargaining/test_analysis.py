"""``analyze``: individual-rationality markers on the frontier and decimal utilities."""

from __future__ import annotations

from accord.core.solutions import individually_rational
from accord.domains.bargaining import analyze, resolve_scenario


def _floats(data):
    if isinstance(data, float):
        yield data
    elif isinstance(data, dict):
        for v in data.values():
            yield from _floats(v)
    elif isinstance(data, list):
        for v in data:
            yield from _floats(v)


def test_every_frontier_point_says_whether_it_is_individually_rational():
    for name in ("procurement", "buyer-seller", "split", "sprint-planning"):
        data = analyze(resolve_scenario(name))
        batna = data["batna"]
        for pt in data["pareto"]:
            below = [p for p in data["parties"] if pt["utilities"][p] < batna[p]]
            assert pt["below_batna"] == below
            assert pt["individually_rational"] is (not below)
        assert data["pareto_individually_rational"] == sum(
            pt["individually_rational"] for pt in data["pareto"])


def test_procurement_frontier_counts():
    data = analyze(resolve_scenario("procurement"))
    assert len(data["pareto"]) == 16 and data["pareto_individually_rational"] == 8
    first = data["pareto"][0]
    assert first["outcome"] == {"price": 40, "sla": "99.9%", "term_months": 12, "scope": "full"}
    assert first["below_batna"] == ["vendor"] and first["individually_rational"] is False


def test_utilities_are_the_decimals_the_scenario_gives():
    """0.9624999999999999 (float noise of a weighted sum) is reported as 0.9625."""
    data = analyze(resolve_scenario("procurement"))
    assert data["pareto"][0]["utilities"]["procurement"] == 0.9625
    for name in ("procurement", "buyer-seller", "split", "sprint-planning"):
        for x in _floats(analyze(resolve_scenario(name))):
            assert float(f"{x:.12g}") == x, (name, x)


def test_an_outcome_worth_exactly_a_batna_is_individually_rational():
    """Three procurement packages are worth exactly a BATNA (vendor 0.4, procurement 0.45)
    but sum to 0.39999999999999997 or 0.44999999999999996 in floats; they count as
    individually rational (78 before, 81 now)."""
    scenario = resolve_scenario("procurement")
    raw = int(individually_rational(scenario.utility_matrix, scenario.batnas).sum())
    assert raw == 78  # the float-noise count this guards against
    assert analyze(scenario)["individually_rational"] == 81
