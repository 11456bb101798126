"""Pure parts of the Deal-or-No-Deal LLM agents: reply parsing, leak flags, the stub policy."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from accord.agents.templates import render
from accord.core.moves import Accept, Malformed, Message, Offer, Reject, Walk
from accord.domains.deal_or_no_deal import DondObservation, DondProtocol
from accord.domains.deal_or_no_deal.llm.agents import proposal_rows
from accord.domains.deal_or_no_deal.llm.belief import BeliefError, parse_belief
from accord.domains.deal_or_no_deal.llm.replies import parse_reply, value_leaks
from accord.domains.deal_or_no_deal.llm.session import PACKAGE
from accord.domains.deal_or_no_deal.stub import parse_state, raw_proposal
from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent, render_belief
from accord.protocols.engine import check_move
from accord.testing.stub import Policy, PolicyError, PolicyRequest, Reply, make_policy

DEAL = "<deal>book=1 hat=0 ball=2</deal>"


def test_proposal_accept_reject_walk_message() -> None:
    move = parse_reply(f"<CONSIDER>secret plan</CONSIDER><MESSAGE>hi</MESSAGE>{DEAL}")
    assert move == Offer({"book": 1, "hat": 0, "ball": 2}, message="hi")
    assert parse_reply("<ACCEPT/>") == Accept()
    assert parse_reply("<accept>") == Accept()
    assert parse_reply("<MESSAGE>no</MESSAGE><REJECT/>") == Reject(message="no")
    counter = parse_reply(f"<REJECT/> <MESSAGE>how about</MESSAGE> {DEAL}")
    assert isinstance(counter, Reject) and counter.counter is not None
    assert counter.counter.package == {"book": 1, "hat": 0, "ball": 2}
    assert counter.counter.message == "how about"
    assert parse_reply("<WALK/><MESSAGE>bye</MESSAGE>") == Walk(reason="bye")
    assert parse_reply("<MESSAGE>books matter to me</MESSAGE>") == Message("books matter to me")
    # lenient about spacing, plurals and case inside the tag
    assert parse_reply("<DEAL>Books=1, hats=0; balls = 2</DEAL>") == \
        Offer({"book": 1, "hat": 0, "ball": 2})


def test_tags_inside_the_message_do_not_make_a_move() -> None:
    move = parse_reply(f"<MESSAGE>Please just <ACCEPT/> this.</MESSAGE>{DEAL}")
    assert isinstance(move, Offer) and move.message == "Please just <ACCEPT/> this."
    # issue 12: a <deal> quoted in the message is text too, even when it is the only one
    inside = parse_reply(f"<MESSAGE>How about {DEAL}?</MESSAGE>")
    assert inside == Message(f"How about {DEAL}?")
    assert parse_reply("<MESSAGE>I will never <WALK/></MESSAGE>") == \
        Message("I will never <WALK/>")


def test_reject_with_a_deal_and_nothing_on_the_table_is_a_proposal() -> None:
    assert parse_reply(f"<REJECT/>{DEAL}", responding=False) == \
        Offer({"book": 1, "hat": 0, "ball": 2})
    assert isinstance(parse_reply(f"<REJECT/>{DEAL}", responding=True), Reject)
    assert parse_reply("<REJECT/>", responding=False) == Reject()  # the protocol refuses it


def test_accept_restating_the_offer_is_an_accept_otherwise_a_conflict() -> None:
    mine = {"book": 1, "hat": 0, "ball": 2}
    assert parse_reply(f"<ACCEPT/> {DEAL}", offer_for_you=mine) == Accept()
    move = parse_reply(f"<ACCEPT/> {DEAL}", offer_for_you={"book": 0, "hat": 2, "ball": 1})
    assert isinstance(move, Malformed) and move.reason == "conflicting_tags"


@pytest.mark.parametrize("text, reason", [
    ("I think we are close to a deal.", "missing_move"),
    ("<deal>book=1 hat=0 ball=2", "unclosed_tag"),
    ("<MESSAGE>hello", "unclosed_tag"),
    (f"{DEAL} {DEAL}", "multiple_deals"),
    ("<deal>book=x hat=0 ball=2</deal>", "bad_deal"),
    ("<deal>book=1 hat=0</deal>", "bad_deal"),
    ("<deal>book=1 hat=0 ball=2 car=1</deal>", "bad_deal"),
    ("<ACCEPT/><REJECT/>", "conflicting_tags"),
    (f"<WALK/>{DEAL}", "conflicting_tags"),
    ("<CONSIDER>only private thoughts <deal>book=1 hat=0 ball=2</deal></CONSIDER>",
     "missing_move"),
])
def test_unreadable_replies_are_malformed_without_private_text(text: str, reason: str) -> None:
    move = parse_reply(f"<CONSIDER>hidden-xyz</CONSIDER>{text}")
    assert isinstance(move, Malformed) and move.reason == reason and move.feedback
    assert "hidden-xyz" not in move.raw and "hidden-xyz" not in move.feedback


def test_protocol_turns_malformed_into_invalid_with_its_feedback() -> None:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)})
    move = parse_reply("no tags here")
    assert isinstance(move, Malformed)
    invalid = check_move(p, p.initial_state(), "alice", move)  # the engine's one step
    assert invalid is not None and invalid.reason == "missing_move"
    assert invalid.feedback == move.feedback
    # counts are the protocol's business, not the parser's
    over = parse_reply("<deal>book=5 hat=0 ball=2</deal>")
    assert isinstance(over, Offer)
    bad = p.validate(p.initial_state(), "alice", over)
    assert bad is not None and bad.reason == "count_out_of_range"


def test_value_leaks() -> None:
    values = (4, 0, 2)
    assert value_leaks("Books are worth 4 to me, honestly.", values) == \
        ["Books are worth 4 to me, honestly"]
    assert value_leaks("Each ball gives me 2 points", values)
    assert value_leaks("My values are quite spread out", values)
    assert value_leaks("I take 2 balls and 1 book; you get the hats.", values) == []
    assert value_leaks("book=1 hat=0 ball=2 please", values) == []
    assert value_leaks("Books are worth 7 to me", values) == []  # not the true value


def _obs() -> DondObservation:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)}, rounds=4)
    return p.observe(p.initial_state(), "alice")


def test_proposal_rows_match_the_rendered_belief() -> None:
    obs = _obs()
    agent = BayesianWorkflowAgent()
    state = agent._init(obs)
    rows = proposal_rows(state)
    text = render_belief(state)
    assert rows and len(rows) == 5
    for row in rows:
        share = " ".join(f"{i}={row['share'][i]}" for i in ("book", "hat", "ball"))
        assert f"- {share}: {row['points']} points, P_EF = {row['p_ef']}" in text


SYSTEM = {"raw": "llm_raw_system.jinja", "assisted": "llm_workflow_system.jinja",
          "seed": "llm_seed_system.jinja"}


def _request(mode: str = "raw", *, round: int = 1, max_rounds: int = 5,
             last_turn: bool = False, offer_to_me: dict[str, int] | None = None,
             belief: str | None = None, retry: bool = False) -> PolicyRequest:
    """A conversation rendered with the agents' own templates (the text a model gets)."""
    items = ["book", "hat", "ball"]
    system = render(SYSTEM[mode], package=PACKAGE, role="alice", partner="bob", items=items,
                    counts=[1, 2, 3], values=[4, 0, 2], total=10, max_rounds=max_rounds,
                    lam="1", gamma="1", learn_from_offers=False)
    partner = None
    if offer_to_me is not None:
        partner = " ".join(f"{i}={c - offer_to_me[i]}" for i, c in zip(items, (1, 2, 3),
                                                                        strict=True))
    turn = render("llm_turn.jinja", package=PACKAGE, round=round, max_rounds=max_rounds,
                  last_turn=last_turn, partner="bob", events=[],
                  offer_to_me=None if offer_to_me is None else " ".join(
                      f"{i}={offer_to_me[i]}" for i in items),
                  partner_share=partner, points=None, my_offer=None, belief=belief,
                  seed=mode == "seed")
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": turn}]
    if retry:
        msgs += [{"role": "assistant", "content": "hmm"},
                 {"role": "user", "content": render(
                     "llm_feedback.jinja", package=PACKAGE, reason="missing_move",
                     feedback="Reply with one move.", attempt=2, max_attempts=6,
                     belief=belief, seed=mode == "seed")}]
    return PolicyRequest(tuple(msgs), model="dond")


def answer(policy: Policy, **kw: Any) -> str:
    """The policy's reply text for a conversation rendered from ``kw``."""
    out = policy.respond(_request(**kw))
    assert isinstance(out, Reply)
    return out.text


def test_stub_policy_raw_strategy_concedes_and_accepts() -> None:
    policy = make_policy("dond")
    first = answer(policy)
    assert first.endswith("<deal>book=1 hat=0 ball=3</deal>")  # all it values, no hats
    move = parse_reply(first)
    assert isinstance(move, Offer) and move.package == {"book": 1, "hat": 0, "ball": 3}
    last = answer(policy, round=5)  # aim 5: the cheapest share worth >= 5
    state = parse_state(_request(round=5))
    assert (state.items, state.counts, state.values, state.round, state.max_rounds) == (
        ("book", "hat", "ball"), (1, 2, 3), (4, 0, 2), 5, 5)
    assert raw_proposal(state, 5) == (1, 0, 1) and "book=1 hat=0 ball=1" in last
    assert answer(policy, round=5, retry=True) == last  # a retry re-reads the latest turn
    offer = {"book": 0, "hat": 2, "ball": 3}  # worth 6
    early = answer(policy, offer_to_me=offer)
    assert "<REJECT/>" in early and "<deal>" in early
    assert "<ACCEPT/>" in answer(policy, round=5, offer_to_me=offer)
    crumbs = {"book": 0, "hat": 2, "ball": 0}  # worth 0: refused even on the last turn
    assert "<ACCEPT/>" not in answer(policy, round=5, last_turn=True, offer_to_me=crumbs)


BELIEF = ("Belief over the partner's values: 13 of 14 valuation vectors remain possible.\n"
          "Your best proposals not yet ruled out (your share, your points, probability the "
          "split is envy-free for both):\n"
          "- book=1 hat=0 ball=2: 8 points, P_EF = 1/13\n"
          "- book=1 hat=1 ball=2: 8 points, P_EF = 5/13\n"
          "- book=0 hat=0 ball=3: 6 points, P_EF = 9/13")


def test_stub_policy_workflow_strategy_follows_problem_1() -> None:
    policy = make_policy("dond")
    wf = {"mode": "assisted", "belief": BELIEF}
    assert answer(policy, **wf).endswith(
        "<deal>book=1 hat=1 ball=2</deal>")  # most points, then the higher P_EF
    envious = {"book": 0, "hat": 2, "ball": 2}  # 4 of 10: not envy-free for alice
    assert "<REJECT/>" in answer(policy, **wf, offer_to_me=envious, last_turn=True)
    fair = {"book": 1, "hat": 0, "ball": 1}  # 6 of 10: envy-free for alice
    assert "<REJECT/>" in answer(policy, **wf, offer_to_me=fair)  # 6 < 8
    assert "<ACCEPT/>" in answer(policy, **wf, offer_to_me=fair, last_turn=True)


def test_stub_policy_seed_mode_states_the_prior_and_solves_problem_1() -> None:
    text = answer(make_policy("dond"), mode="seed")
    stated = parse_belief(text, ("book", "hat", "ball"), (1, 2, 3), 10)
    assert len(stated.support) == 14 and set(stated.probs) == {Fraction(1, 14)}
    assert parse_reply(text) == Offer({"book": 1, "hat": 0, "ball": 3},
                                      message="How about I take 1 book and 3 balls and you "
                                              "get the rest?")


def test_stub_policy_errors_are_clear() -> None:
    policy = make_policy("dond")
    with pytest.raises(PolicyError, match="does not describe a Deal-or-No-Deal game"):
        policy.respond(PolicyRequest(({"role": "user", "content": "hi"},), model="dond"))
    req = _request()
    with pytest.raises(PolicyError, match="no turn prompt"):
        policy.respond(PolicyRequest(req.messages[:1], model="dond"))
    with pytest.raises(PolicyError, match="floor"):
        make_policy("dond", floor=2)


def test_tags_in_private_reasoning_or_unclosed_message_make_no_move_issue_12() -> None:
    assert parse_reply("<THINK>maybe <ACCEPT/></THINK><REJECT/>") == Reject()
    swallowed = parse_reply(f"<MESSAGE>fine, I will <WALK/> {DEAL}")
    assert isinstance(swallowed, Malformed) and swallowed.reason == "unclosed_tag"
    assert parse_reply(f"<REJECT/><MESSAGE>I will never <ACCEPT/> that</MESSAGE>{DEAL}") == \
        Reject(counter=Offer({"book": 1, "hat": 0, "ball": 2},
                             message="I will never <ACCEPT/> that"))


# -- the seed mode's <BELIEF> statement ---------------------------------------------------------
ITEMS3 = ("book", "hat", "ball")


def test_belief_statement_is_read_in_every_notation() -> None:
    text = ("<CONSIDER>eq. 3 ...</CONSIDER>\n<BELIEF>\n- book=0 hat=2 ball=2: 1/2\n"
            "Books=2, hats=1, balls=2 : 0.25\n book=4 hat=0 ball=2: 25%\n"
            "book=10 hat=0 ball=0: 0\n</BELIEF>\n<deal>book=1 hat=0 ball=3</deal>")
    got = parse_belief(text, ITEMS3, (1, 2, 3), 10)
    assert got.support == ((0, 2, 2), (2, 1, 2), (4, 0, 2))
    assert got.probs == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    assert got.to_dict(ITEMS3)[0] == {"values": {"book": 0, "hat": 2, "ball": 2}, "p": "1/2"}


@pytest.mark.parametrize("text, reason, words", [
    ("<deal>book=1 hat=0 ball=3</deal>", "missing_belief", "outside <CONSIDER>"),
    ("<CONSIDER><BELIEF>book=0 hat=2 ball=2: 1</BELIEF></CONSIDER>", "missing_belief", ""),
    ("<MESSAGE>my <BELIEF>book=0 hat=2 ball=2: 1</BELIEF></MESSAGE>", "missing_belief", ""),
    ("<BELIEF>book=0 hat=2 ball=2: 1</BELIEF><BELIEF>book=0 hat=2 ball=2: 1</BELIEF>",
     "multiple_beliefs", "exactly one"),
    ("<BELIEF>book=0 hat=2 ball=2: 1", "unclosed_belief", "</BELIEF>"),
    ("<BELIEF>book=1 hat=1 ball=1: 1</BELIEF>", "impossible_valuation", "1*1 + 2*1 + 3*1 = 6"),
    ("<BELIEF>book=0 hat=2: 1</BELIEF>", "bad_belief", "missing ball"),
    ("<BELIEF>the partner likes hats</BELIEF>", "bad_belief", "cannot read the belief line"),
    ("<BELIEF>book=0 hat=2 ball=2: lots</BELIEF>", "bad_belief", "fraction"),
    ("<BELIEF>book=0 hat=2 ball=2: 1/0</BELIEF>", "bad_belief", "fraction"),
    ("<BELIEF>book=0 hat=2 ball=2: 1/2\nbook=0 hat=2 ball=2: 1/2</BELIEF>", "bad_belief",
     "twice"),
    ("<BELIEF>book=0 hat=2 ball=2: 0</BELIEF>", "empty_belief", "no valuation"),
    ("<BELIEF>book=0 hat=2 ball=2: 1/2</BELIEF>", "belief_not_normalized", "0.500"),
])
def test_unreadable_belief_statements_get_targeted_feedback(text: str, reason: str,
                                                            words: str) -> None:
    with pytest.raises(BeliefError) as info:
        parse_belief(text, ITEMS3, (1, 2, 3), 10)
    assert info.value.reason == reason and words in info.value.feedback
