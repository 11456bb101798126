import dataclasses

import numpy as np
import pytest

from accord.core import Party, Scenario
from accord.domains import get_domain
from accord.domains.bargaining import builtin_scenarios, resolve_scenario
from accord.domains.bargaining.conformance import check_observation
from accord.protocols.alternating import AlternatingOffers
from accord.protocols.negotiation import NegotiationObservation
from accord.testing import ConformanceError, check_protocol


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


# -- every built-in domain ships a kit; a broken protocol is caught --------------------------

BUILTIN_DOMAINS = ("bargaining", "deal-or-no-deal", "task-exchange", "deliberation", "games")


@pytest.mark.parametrize("name", BUILTIN_DOMAINS)
def test_check_protocol_on_every_builtin_domain(name):
    report = check_protocol(get_domain(name), seed=2)
    assert report.episodes == 20
    assert report.invalid_moves > 0 and report.steps > 0
    ended = "completed" if name == "games" else "agreement"  # a game is never an agreement
    assert report.statuses.get(ended, 0) > 0  # episodes were played to an end
    assert name != "games" or "agreement" not in report.statuses


def _broken(kit, rebuild):
    """``kit`` making the broken subclass ``rebuild`` builds from each of its protocols."""
    make = kit.make
    return dataclasses.replace(kit, make=lambda i: rebuild(make(i)))


def test_the_dond_kit_plays_real_datapoints_or_the_documented_fallback(tmp_path):
    from accord.domains.deal_or_no_deal.conformance import FALLBACK_POINTS, data_points

    assert data_points(str(tmp_path)) == FALLBACK_POINTS  # no data set installed there
    installed = data_points()
    if installed != FALLBACK_POINTS:  # the data set under ACCORD_DATA
        protocol = get_domain("deal-or-no-deal").conformance_kit().make(0)
        assert protocol.scenario == installed[0][0] == "test/0"
        assert len(installed) == 12 and all(pid.startswith("test/") for pid, *_ in installed)


def test_a_dond_protocol_leaking_the_partners_values_is_caught():
    from accord.domains.deal_or_no_deal.conformance import FALLBACK_POINTS, kit
    from accord.domains.deal_or_no_deal.protocol import DondProtocol

    class Leaky(DondProtocol):
        def observe(self, state, role):
            obs = super().observe(state, role)
            other = "bob" if role == "alice" else "alice"
            return dataclasses.replace(obs, history=(*obs.history, {"hint": self.values[other]}))

    good = kit(FALLBACK_POINTS)  # the in-code datapoints used when the data is absent
    check_protocol(good, episodes=6)
    bad = _broken(good, lambda p: Leaky(p.counts, p.values, rounds=p.rounds, first=p.first))
    with pytest.raises(ConformanceError, match=r"deal-or-no-deal, episode 0: .*observation "
                                               r"reaches .*'s private tuple"):
        check_protocol(bad, episodes=6)


def test_a_task_exchange_protocol_skipping_validation_is_caught():
    from accord.domains.task_exchange.conformance import kit
    from accord.domains.task_exchange.protocol import TaskExchangeProtocol

    class Lax(TaskExchangeProtocol):  # forwards every proposal unchecked, like the baseline
        def validate(self, state, role, move):
            verdict = super().validate(state, role, move)
            return None if verdict is not None and verdict.reason != "illegal_move" else verdict

    bad = _broken(kit(), lambda p: Lax(p.scenario, p.strategy, p.turn_limit))
    with pytest.raises(ConformanceError, match=r"task-exchange, episode \d+: illegal move "
                                               r".* was accepted"):
        check_protocol(bad, episodes=8)


def test_a_deliberation_protocol_showing_another_agents_observation_is_caught():
    from accord.domains.deliberation.conformance import kit
    from accord.domains.deliberation.protocol import DeliberationProtocol

    class Leaky(DeliberationProtocol):
        def observe(self, state, role):
            obs = super().observe(state, role)
            other = next(p for p in self.parties if p != role) if len(self.parties) > 1 \
                else role
            return dataclasses.replace(obs, proposals={**obs.proposals,
                                                       "notes": self.private[other]})

    def rebuild(p):
        return Leaky(p.parties, p.shared, p.private, p.normalize, mode=p.mode, leader=p.leader,
                     max_rounds=p.max_rounds, max_chars=p.max_chars, tools=p.tools,
                     merged=p.merged)

    with pytest.raises(ConformanceError, match="deliberation, episode 0: agent_0's observation "
                                               "reaches agent_1's private dict"):
        check_protocol(_broken(kit(), rebuild), episodes=3)


def test_a_game_protocol_taking_any_action_is_caught():
    from accord.domains.games.conformance import kit
    from accord.domains.games.protocol import GameProtocol

    class Lax(GameProtocol):  # takes any action name, not only the mover's legal ones
        def validate(self, state, role, move):
            verdict = super().validate(state, role, move)
            return None if verdict is not None and verdict.reason == "illegal_action" else verdict

    def rebuild(p):
        return Lax(p.game, negotiation_rounds=p.rounds, first_speaker=p.order[0],
                   max_message_chars=p.max_message_chars)

    good = kit()
    assert good.private(good.make(0), "Alice") == ()  # complete information: nothing private
    with pytest.raises(ConformanceError, match=r"games, episode \d+: illegal move "
                                               r"\{'kind': 'action'.* was accepted"):
        check_protocol(_broken(good, rebuild), episodes=8)


def _coverage(kit, episodes=40, seed=0):
    """Kinds of the kit's legal moves and reasons for refusing its illegal ones, over
    ``episodes`` walks of the state machine."""
    rng = np.random.default_rng(seed)
    kinds, reasons = set(), set()
    for ep in range(episodes):
        protocol = kit.make(ep)
        state = protocol.initial_state()
        while protocol.termination(state) is None and protocol.progress(state).round <= 12:
            moves = {}
            for role in protocol.to_move(state):
                obs = protocol.observe(state, role)
                reasons.add(protocol.validate(state, role, kit.illegal(obs, rng)).reason)
                moves[role] = kit.legal(obs, rng)
                kinds.add(moves[role].kind)
            state, _ = protocol.apply(state, moves)
    return kinds, reasons


@pytest.mark.parametrize(("name", "kinds", "reasons"), [
    ("deal-or-no-deal", {"offer", "accept", "reject", "message", "walk"},
     {"unknown_item", "missing_item", "not_integer", "count_out_of_range", "nothing_to_accept",
      "nothing_to_reject", "empty_message", "illegal_move"}),
    ("task-exchange", {"message", "offer", "accept", "reject", "malformed"},
     {"illegal_move", "unknown_task", "overlap", "empty_agent", "missing_atomic_tasks",
      "malformed_proposal", "missing_proposal_open_tag"}),
    ("deliberation", {"offer", "message", "accept", "decide"},
     {"bad_proposal", "nothing_to_accept", "not_leader", "illegal_move", "empty_message"}),
    ("games", {"message", "action"},
     {"expected_message", "empty_message", "message_too_long", "expected_action",
      "illegal_action"}),
])
def test_kits_sample_the_whole_move_space(name, kinds, reasons):
    """Legal samplers reach every move kind; illegal ones every kind of refusal."""
    got_kinds, got_reasons = _coverage(get_domain(name).conformance_kit())
    assert got_kinds == kinds
    assert got_reasons == reasons
