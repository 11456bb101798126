"""A rule-based Deal-or-No-Deal party that answers accord's DoND LLM prompts (no model).

It lets whole Deal-or-No-Deal episodes with LLM agents run end to end (real HTTP, real
SDK, real tag parsing) with no model. It reads **the same text a model gets** - the
prompts of :mod:`accord.domains.deal_or_no_deal.llm.agents` carry no machine-readable
block for it - the way a careful model would:

* the system prompt: the items and counts (``There are 1 book, 2 hats, 3 balls to divide
  between you and bob.``), its own values (``Your private values per unit: book=4, hat=0,
  ball=2.``), the round cap (``for at most 10 rounds``) and which agent it plays: the raw
  negotiator, the assisted workflow (``THE WORKFLOW (Algorithm 1)``, belief shown by
  accord) or the seed's workflow (``<BELIEF>`` asked for; ``lambda = .. and gamma = ..``);
* the latest turn prompt (``Round r of R.``, ``This is the LAST turn``, ``On the table:
  bob's proposal to take ..., leaving you book=0 hat=2 ball=1``); a retry prompt repeats
  none of that, so the latest turn prompt in the conversation is used;
* the partner's moves listed under ``Since your last turn:`` (rejections of its own
  proposals, counter-proposals), read from every turn prompt of the conversation, with
  the partner's quoted text (``<COUNTERPART_TEXT>``) cut out first: it is data;
* assisted mode: the proposals accord lists (``- book=1 hat=0 ball=3: 7 points, P_EF =
  1/3``).

Replies: a private ``<CONSIDER>...</CONSIDER>`` (stripped by the agent), a public
``<MESSAGE>...</MESSAGE>``, then one move: ``<deal>book=x hat=y ball=z</deal>`` (a
proposal of this party's own share), ``<ACCEPT/>``, or ``<REJECT/>`` followed by a counter
``<deal>``; in the seed's mode also its ``<BELIEF>``. It never walks.

Strategy of the raw negotiator (no workflow): it never asks for items worth nothing to
it; its target falls linearly from its total value in round 1 to ``floor * total`` in the
last round; it proposes the cheapest share (for it) that meets the target, giving the
partner as many items as possible among equals; it accepts an offer worth at least its
target or at least what it would counter with, and on the last turn any offer worth more
than nothing.

Workflow strategy (Algorithm 1, as an LLM following the workflow prompt would): it
proposes the top of problem (1) (most points, then highest ``P_EF``) and accepts an offer
that is envy-free for itself and worth at least that proposal - on the last turn, any
envy-free offer. In the assisted mode problem (1) is read from accord's list; in the
seed's mode the policy keeps the belief of Definition 10 itself (uniform over Omega),
applies equation (3) as the prompt states it (R1 likelihood 1, R2 ``gamma``, step
``lambda``; R2's better split is envy-free for the partner and plausibly fair to this
party under some valuation of its own; evidence impossible under the whole support
leaves the belief unchanged; proposals as evidence when the prompt says so), computes
``P_EF`` of equation (2) exactly and states the belief with exact fractions. It is
self-contained (it does not import accord's solvers), so tests that compare its stated
belief with accord's computation check both. With no candidate left it falls back to the
raw strategy.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

Share = tuple[int, ...]

_THERE_ARE = re.compile(r"There are (.+?) to divide between you and (\S+?)\.")
_VALUES = re.compile(r"Your private values per unit: (.+?)\. All the items")
_ROUNDS = re.compile(r"for at most (\d+) rounds")
_ROUND = re.compile(r"^Round (\d+) of (\d+)\.", re.M)
_TABLE = re.compile(r"^On the table: \S+ proposal to take (.+?), leaving you (.+?)"
                    r"(?: \(\d+ points for you\))?\.$", re.M)
_LAMBDA = re.compile(r"lambda = ([0-9/.]+) and gamma = ([0-9/.]+?)\.(?:\s|$)")
_PROPOSAL_ROW = re.compile(r"^- (.+?): (\d+) points, P_EF = (\S+)$", re.M)
_QUOTED = re.compile(r"<COUNTERPART_TEXT\b.*?</COUNTERPART_TEXT>", re.S)
_EVENT = re.compile(r"^- round \d+: \S+ (?:rejected your proposal \(you take (?P<rej>[^)]*)\)"
                    r"(?: and | without a counter-proposal\.))?(?:proposes to take (?P<take>.+?),"
                    r" leaving you (?P<left>.+?)\.)?$", re.M)


@dataclass(frozen=True)
class PromptState:
    """What the policy read from the prompts: the game, the turn and its mode."""

    items: tuple[str, ...]
    counts: Share
    values: Share
    round: int
    max_rounds: int
    last_turn: bool
    offer_to_me: Share | None
    proposals: tuple[tuple[Share, int, Fraction], ...] | None
    mode: str = "raw"  # raw | assisted | seed

    @property
    def total(self) -> int:
        """This party's value of all the items."""
        return points(self.values, self.counts)


def points(values: Sequence[int], share: Sequence[int]) -> int:
    """Value of ``share`` under ``values``."""
    return sum(v * s for v, s in zip(values, share, strict=True))


def _singular(word: str, counts_known: Sequence[str] = ()) -> str:
    w = word.lower()
    if w in counts_known:
        return w
    if w.endswith("es") and w[:-2] in counts_known:
        return w[:-2]
    return w[:-1] if w.endswith("s") and (not counts_known or w[:-1] in counts_known) else w


def _vector_text(text: str, items: Sequence[str]) -> Share:
    """``book=1 hat=0 ball=2`` (commas allowed) as a vector in item order."""
    found = dict((k.lower(), int(v)) for k, v in re.findall(r"([A-Za-z]+)\s*=\s*(\d+)", text))
    if set(found) != set(items):
        raise PolicyError(f"dond policy: cannot read {text!r} as a value per item of "
                          f"{list(items)}")
    return tuple(found[i] for i in items)


def parse_game(system: str) -> tuple[tuple[str, ...], Share, Share, int]:
    """Items, counts, own values and round cap from a DoND system prompt."""
    there, vals, cap = _THERE_ARE.search(system), _VALUES.search(system), _ROUNDS.search(system)
    if there is None or vals is None or cap is None:
        raise PolicyError("dond policy: the system prompt does not describe a Deal-or-No-Deal "
                          "game (items, private values, round cap)")
    items: list[str] = []
    counts: list[int] = []
    for part in there.group(1).split(","):
        m = re.fullmatch(r"\s*(\d+) ([A-Za-z]+)\s*", part)
        if m is None:
            raise PolicyError(f"dond policy: cannot read the item count {part.strip()!r}")
        n = int(m.group(1))
        items.append(m.group(2).lower() if n == 1 else _singular(m.group(2)))
        counts.append(n)
    return tuple(items), tuple(counts), _vector_text(vals.group(1), items), int(cap.group(1))


def _mode(system: str) -> str:
    if "THE WORKFLOW" not in system:
        return "raw"
    return "seed" if "<BELIEF>" in system else "assisted"


def _turns(request: PolicyRequest) -> list[str]:
    """The turn prompts (user messages with ``Round r of R.``), oldest first."""
    return [str(m.get("content", "")) for m in request.messages
            if m.get("role") == "user" and _ROUND.search(str(m.get("content", "")))]


def parse_state(request: PolicyRequest) -> PromptState:
    """Read the game and the current turn from the conversation (:class:`PolicyError` if bad)."""
    system = request.system()
    items, counts, values, cap = parse_game(system)
    turns = _turns(request)
    if not turns:
        raise PolicyError("dond policy: no turn prompt (\"Round r of R.\") in the conversation")
    turn = _QUOTED.sub("", turns[-1])
    rnd = _ROUND.search(turn)
    assert rnd is not None
    table = _TABLE.search(turn)
    mode = _mode(system)
    proposals = None
    if mode == "assisted":
        shown = [m for m in request.messages if m.get("role") == "user"
                 and "Your best proposals not yet ruled out" in str(m.get("content", ""))]
        if shown:
            rows = _PROPOSAL_ROW.findall(_QUOTED.sub("", str(shown[-1].get("content", ""))))
            proposals = tuple((_vector_text(share, items), int(pts), Fraction(pef))
                              for share, pts, pef in rows)
    return PromptState(items, counts, values, int(rnd.group(1)), cap,
                       "This is the LAST turn" in turn,
                       None if table is None else _vector_text(table.group(2), items),
                       proposals, mode)


def target(state: PromptState, floor: float) -> float:
    """The raw strategy's aspiration this round (total in round 1, ``floor * total`` last)."""
    t = 1.0 if state.max_rounds <= 1 else min(1.0, (state.round - 1) / (state.max_rounds - 1))
    total = state.total
    return total - (total - floor * total) * t


def raw_proposal(state: PromptState, aim: float) -> Share:
    """The cheapest share meeting ``aim`` (never taking worthless items), most left over."""
    ranges = [range(c + 1) if v > 0 else range(1) for c, v in zip(state.counts, state.values,
                                                                    strict=True)]
    shares = list(itertools.product(*ranges))
    ok = [s for s in shares if points(state.values, s) >= aim - 1e-9]
    if not ok:
        return max(shares, key=lambda s: (points(state.values, s), -sum(s)))
    return min(ok, key=lambda s: (points(state.values, s), sum(s), s))


def _deal(items: Sequence[str], share: Sequence[int]) -> str:
    return "<deal>" + " ".join(f"{i}={n}" for i, n in zip(items, share, strict=True)) + "</deal>"


def _counter(state: PromptState, share: Share, note: str, respond: bool, extra: str = ""
             ) -> Reply:
    deal = _deal(state.items, share)
    text = " and ".join(f"{n} {i}{'s' if n != 1 else ''}" for i, n in
                        zip(state.items, share, strict=True) if n) or "nothing"
    verdict = "<REJECT/>\n" if respond else ""
    return Reply(f"<CONSIDER>{note}</CONSIDER>{extra}\n<MESSAGE>How about I take {text} and "
                 f"you get the rest?</MESSAGE>\n{verdict}{deal}")


def _accept(note: str, extra: str = "") -> Reply:
    return Reply(f"<CONSIDER>{note} I accept.</CONSIDER>{extra}\n<MESSAGE>Deal, thank you."
                 "</MESSAGE>\n<ACCEPT/>")


def _support_lines(items: Sequence[str], belief: dict[Share, Fraction]) -> str:
    return "\n".join(" ".join(f"{i}={v}" for i, v in zip(items, w, strict=True)) + f": {p}"
                     for w, p in belief.items() if p > 0)


@dataclass
class SeedBelief:
    """The seed's workflow carried out by the policy: Definition 10, eqs. (2) and (3)."""

    counts: Share
    values: Share
    lam: Fraction
    gamma: Fraction
    learn_from_offers: bool

    def __post_init__(self) -> None:
        self.total = points(self.values, self.counts)
        self.omega = [w for w in itertools.product(*(range(self.total // c + 1)
                                                     for c in self.counts))
                      if points(w, self.counts) == self.total]
        self.shares = list(itertools.product(*(range(c + 1) for c in self.counts)))
        self.belief = {w: Fraction(1, len(self.omega)) for w in self.omega}
        self.rejected: set[Share] = set()
        # a split is plausibly fair to me, as the partner sees it, when some valuation of
        # mine on the same lattice makes me not envy the partner
        self.plausible = {a for a in self.shares
                          if any(points(u, a) >= points(u, self._rest(a)) for u in self.omega)}

    def _rest(self, share: Share) -> Share:
        return tuple(c - s for c, s in zip(self.counts, share, strict=True))

    def partner_ok(self, w: Share, mine: Share) -> bool:
        """The partner with values ``w`` does not envy me taking ``mine``."""
        return points(w, self._rest(mine)) >= points(w, mine)

    def own_ok(self, mine: Share) -> bool:
        """I do not envy the partner when I take ``mine``."""
        return points(self.values, mine) >= points(self.values, self._rest(mine))

    def p_ef(self, mine: Share) -> Fraction:
        """Equation (2)."""
        if not self.own_ok(mine):
            return Fraction(0)
        return sum((p for w, p in self.belief.items() if p and self.partner_ok(w, mine)),
                   Fraction(0))

    def _update(self, likelihood: dict[Share, Fraction]) -> None:
        """Equation (3); evidence impossible under the support leaves the belief as it is."""
        norm = sum((likelihood[w] * p for w, p in self.belief.items()), Fraction(0))
        if norm == 0:
            return
        self.belief = {w: (1 - self.lam) * p + self.lam * likelihood[w] * p / norm
                       for w, p in self.belief.items()}

    def rejection(self, mine: Share) -> None:
        """The partner rejected my proposal ``mine``: R1 -> 1, R2 -> gamma, else 0."""
        self.rejected.add(mine)
        lik: dict[Share, Fraction] = {}
        for w in self.omega:
            if not self.partner_ok(w, mine):
                lik[w] = Fraction(1)
                continue
            theirs = points(w, self._rest(mine))
            better = any(self.partner_ok(w, a) and a in self.plausible
                         and points(w, self._rest(a)) > theirs for a in self.shares)
            lik[w] = self.gamma if better else Fraction(0)
        self._update(lik)

    def proposal_from_partner(self, mine: Share) -> None:
        """The partner proposed that I take ``mine``: it does not envy that split."""
        if self.learn_from_offers:
            self._update({w: Fraction(1 if self.partner_ok(w, mine) else 0) for w in self.omega})

    def best(self) -> tuple[Share, int, Fraction] | None:
        """Problem (1): most points with P_EF > 0, then highest P_EF, then most for the
        partner in expectation; splits the partner rejected are never proposed again."""
        rows = [(a, points(self.values, a), self.p_ef(a)) for a in self.shares
                if a not in self.rejected]
        rows = [r for r in rows if r[2] > 0]
        if not rows:
            return None
        top = max(r[1] for r in rows)

        def key(r: tuple[Share, int, Fraction]) -> tuple[Fraction, Fraction]:
            return r[2], sum((p * points(w, self._rest(r[0])) for w, p in self.belief.items()),
                             Fraction(0))
        return max((r for r in rows if r[1] == top), key=key)


def seed_belief(request: PolicyRequest, state: PromptState) -> SeedBelief:
    """Replay the conversation's turn prompts through the seed's workflow."""
    system = request.system()
    found = _LAMBDA.search(system)
    if found is None:
        raise PolicyError("dond policy: the workflow prompt gives no 'lambda = .. and gamma = ..'")
    belief = SeedBelief(state.counts, state.values, Fraction(found.group(1)),
                        Fraction(found.group(2)), " is evidence too" in system)
    for turn in _turns(request):
        for ev in _EVENT.finditer(_QUOTED.sub("", turn)):
            mine_left = None if ev.group("left") is None else _vector_text(ev.group("left"),
                                                                          state.items)
            if ev.group("rej") is not None:
                asked = _vector_text(ev.group("rej"), state.items)
                gives_more = mine_left is not None and all(
                    x >= y for x, y in zip(mine_left, asked, strict=True))
                if not gives_more:
                    belief.rejection(asked)
            if mine_left is not None:
                belief.proposal_from_partner(mine_left)
    return belief


@register_policy("dond")
class DondPolicy(Policy):
    """Rule-based Deal-or-No-Deal party for raw and workflow LLM prompts (see the module)."""

    name = "dond"

    def __init__(self, floor: float = 0.5) -> None:
        if not 0 <= floor <= 1:
            raise PolicyError(f"dond policy: floor must lie in [0, 1], got {floor}")
        self.floor = float(floor)

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read the conversation as a model would and answer with tags."""
        state = parse_state(request)
        got = None if state.offer_to_me is None else points(state.values, state.offer_to_me)
        if state.mode == "seed":
            return self._seed(request, state, got)
        if state.proposals:
            return self._workflow(state, state.proposals, got)
        return self._raw(state, got)

    def _raw(self, state: PromptState, got: int | None, extra: str = "") -> Reply:
        aim = target(state, self.floor)
        mine = raw_proposal(state, aim)
        note = f"Round {state.round}/{state.max_rounds}: private aim {aim:.2f} points"
        if got is not None:
            note += f"; the offer gives me {got}"
            if got >= aim - 1e-9 or got >= points(state.values, mine) or (
                    state.last_turn and got > 0):
                return _accept(note + ".", extra)
        return _counter(state, mine, note + ".", got is not None, extra)

    def _seed(self, request: PolicyRequest, state: PromptState, got: int | None) -> Reply:
        belief = seed_belief(request, state)
        stated = f"\n<BELIEF>\n{_support_lines(state.items, belief.belief)}\n</BELIEF>"
        best = belief.best()
        if best is None:
            return self._raw(state, got, stated)
        return self._workflow(state, (best,), got, stated)

    def _workflow(self, state: PromptState, proposals: Sequence[tuple[Share, int, Fraction]],
                  got: int | None, extra: str = "") -> Reply:
        best_points = max(p for _, p, _ in proposals)
        share, pts, pef = max((r for r in proposals if r[1] == best_points), key=lambda r: r[2])
        note = (f"Workflow: problem (1) gives {_deal(state.items, share)} worth {pts} "
                f"(P_EF {pef})")
        if got is not None:
            fair = 2 * got >= state.total  # my share is worth at least the partner's to me
            note += f"; the offer gives me {got} and is {'' if fair else 'not '}envy-free for me"
            if fair and (got >= pts or state.last_turn):
                return _accept(note + ".", extra)
        return _counter(state, share, note + ".", got is not None, extra)


__all__ = ["DondPolicy", "PromptState", "SeedBelief", "parse_game", "parse_state", "points",
           "raw_proposal", "seed_belief", "target"]
