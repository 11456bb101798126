import pytest

from accord.core import Party, Scenario
from accord.domains.bargaining import builtin_scenarios, resolve_scenario
from accord.protocols.alternating import AlternatingOffers
from accord.protocols.negotiation import NegotiationObservation
from accord.testing import ConformanceError, check_protocol
from accord.testing.conformance import _check_observation


@pytest.mark.parametrize("name", builtin_scenarios())
def test_check_protocol_on_every_builtin(name):
    report = check_protocol(resolve_scenario(name), episodes=12, seed=1)
    assert report.episodes == 12
    assert report.invalid_moves > 0  # illegal moves were really exercised
    assert sum(report.statuses.values()) == 12


def test_leak_detector_catches_a_leaky_observation():
    scenario = resolve_scenario("split")
    obs = AlternatingOffers(scenario).observe(AlternatingOffers(scenario).initial_state(), "alice")
    _check_observation(scenario, "alice", obs)  # clean
    leaky = NegotiationObservation(role="alice", round=1, utility=scenario.party("bob").utility,
                                   batna=0.2)
    with pytest.raises(ConformanceError, match="bob's private utility"):
        _check_observation(scenario, "alice", leaky)
    wrong_batna = NegotiationObservation(role="alice", round=1,
                                         utility=scenario.party("alice").utility, batna=0.9)
    with pytest.raises(ConformanceError, match="BATNA"):
        _check_observation(scenario, "alice", wrong_batna)
    assert isinstance(scenario, Scenario) and isinstance(scenario.parties[0], Party)
