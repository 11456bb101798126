import pytest

from accord.core import Party, Scenario
from accord.domains.bargaining import builtin_scenarios, resolve_scenario
from accord.domains.bargaining.conformance import check_observation
from accord.protocols.alternating import AlternatingOffers
from accord.protocols.negotiation import NegotiationObservation
from accord.testing import check_protocol


@pytest.mark.parametrize("name", builtin_scenarios())
def test_check_protocol_on_every_builtin(name):
    report = check_protocol(resolve_scenario(name), episodes=12, seed=1)
    assert report.episodes == 12
    assert report.invalid_moves > 0  # illegal moves were really exercised
    assert sum(report.statuses.values()) == 12


def test_leak_detector_catches_a_leaky_observation():
    scenario = resolve_scenario("split")
    obs = AlternatingOffers(scenario).observe(AlternatingOffers(scenario).initial_state(), "alice")
    check_observation(scenario, "alice", obs)  # clean
    leaky = NegotiationObservation(role="alice", round=1, utility=scenario.party("bob").utility,
                                   batna=0.2)
    with pytest.raises(AssertionError, match="bob's private utility"):
        check_observation(scenario, "alice", leaky)
    wrong_batna = NegotiationObservation(role="alice", round=1,
                                         utility=scenario.party("alice").utility, batna=0.9)
    with pytest.raises(AssertionError, match="BATNA"):
        check_observation(scenario, "alice", wrong_batna)
    assert isinstance(scenario, Scenario) and isinstance(scenario.parties[0], Party)
