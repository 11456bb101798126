"""Rule-based stub policies for the task-exchange domain (seed 000): a negotiating party
and a scenario generator, so whole LLM episodes and generator runs work with no model.

**What it reads** (``task-exchange`` policy): the Figure 7 prompts of accord's
task-exchange LLM agent (:mod:`accord.domains.task_exchange.llm.agent`, rendered by
:mod:`accord.domains.task_exchange.llm.prompts`), the same text a model reads, no
machine-readable block:

* from the system prompt: ``You are agent A. You negotiate with agent B``; ``Your original
  task: "..." (mask=BITS)``; ``Each N-bit mask``; ``Negotiation Flow (max T turns)``; the
  role order from the ``<PROPOSAL>`` template; and every ``• description (mask=BITS,
  util=U) ++ complement: ...`` line (all 2^n masks, this party's own utility as printed,
  two decimals). The partner's original task is the complement of this party's. Rule 5
  (``5. Be strategic``) means the utility-aware strategy;
* from each user message: ``Global Turn t/T, Agent Turn #k``; the phase from the
  instruction line (``This is your Agent Turn 1`` consider, ``Send your own proposal``
  propose, ``Answer B's latest proposal`` respond, ``This is the final turn`` final
  respond); ``was invalid and was NOT delivered`` marks a retry; ``[Turn t] B: ...``
  dialogue lines, whose ``<PROPOSAL>{json}</PROPOSAL>`` is the partner's latest proposal
  (the one a respond turn answers). The policy is stateless: it reads the whole session
  (earlier turns and its own earlier replies) from the request, so the same request
  always gets the same answer (cache replay reproduces runs).

Replies follow Figure 7 exactly: a private ``<CONSIDER>...</CONSIDER>`` (it holds the
numbers the party reasons with, so tests can check it never leaks), then in Turn 1
nothing else; otherwise ``<PROPOSAL>{"Alice": ["desc"], "Bob": ["desc"]}</PROPOSAL>``, or
``<ACCEPT> I agree with this allocation. </ACCEPT>``, or ``<REJECT> ... </REJECT>``
followed by the counter ``<PROPOSAL>`` (no counter on the final turn).

Strategy (time-dependent concession with a partner model): the target utility falls from
the best split to the original task's utility as ``best - (best - u0) * tau ** exponent``
with ``tau = (turn - 2) / (turn_limit - 2)``. Among the splits meeting the target that the
partner has not rejected, a utility-aware party proposes the one its partner model rates
highest (bits the partner kept in its own proposals and original task count up); a
baseline party (no Rule 5) proposes the one best for itself. It accepts a valid split
worth at least its original task and at least its target (or what it would counter with);
on the final turn it accepts anything at least as good as its original task.

``mistakes`` (e.g. ``"UNK+MAT+OVL+MPT+MET+MDA+EMP"`` or ``["OVL"] * 6``) makes the first
proposal-phase replies of each session commit those Table 2 patterns (unknown task,
missing atomic task, overlap, missing ``<PROPOSAL>``, missing ``</PROPOSAL>``, multiple
descriptions per agent, empty agent), counted over attempts including retries; ``OK``
in the list is a normal reply (``"UNK*5+OK+UNK*5"`` fails five times in two turns each);
after the list it plays as above. :class:`~accord.testing.stub.policies.FaultyPolicy`
wrapping this policy gives the transport and tag faults (``unclosed`` drops
``</PROPOSAL>``, ``malformed`` strips every tag).

**Generator contract** (``task-exchange-generator`` policy), for the prompts of
:mod:`accord.domains.task_exchange.generators`: a request whose last user message asks
for ``<DESCRIPTION>`` lists the tool calls as ``- call`` lines after the line ending in
``no more and no fewer:``; the answer joins them into one sentence. A request asking for
``<SCORE>`` holds ``preferences: "..."`` and ``Task: "..."``; the score is
``round(5 + 95 * k)`` with ``k`` the share of the preference's word stems (first three
letters of each word that is not a stop word) found in the task (so preferences drive
utilities, deterministically).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

_PROPOSAL_RE = re.compile(r"<PROPOSAL\s*>(.*?)</PROPOSAL\s*>", re.S | re.I)
_WHO = re.compile(r"^You are agent (.+?)\. You negotiate with agent (.+?) over", re.M)
_ORIGINAL = re.compile(r"^Your original task: \".*\" \(mask=([01]+)\)\.$", re.M)
_N = re.compile(r"Each (\d+)-bit mask")
_LIMIT = re.compile(r"Negotiation Flow \(max (\d+) turns\)")
_ROLES = re.compile(r'<PROPOSAL>\{\s*"(.+?)": \[.*?\],\s*"(.+?)": \[', re.S)
_COMPOSITE = re.compile(r"^• (.*) \(mask=([01]+), util=(-?[0-9.]+)\) \+\+ complement: ",
                        re.M)
_TURN = re.compile(r"^You are agent (.+?)\. Global Turn (\d+)/(\d+), Agent Turn #(\d+)\.",
                   re.M)
_ENTRY = re.compile(r"^\[Turn (\d+)\] (.+?): ", re.M)
MISTAKES: tuple[str, ...] = ("UNK", "MAT", "OVL", "MPT", "MET", "MDA", "EMP")
"""Table 2 pattern codes the policy can commit on purpose."""
ACCEPT = "<ACCEPT> I agree with this allocation. </ACCEPT>"
REJECT = "<REJECT> This doesn't work for me. Let's try another allocation. </REJECT>"
_EPS = 1e-9


@dataclass(frozen=True)
class Setup:
    """A party's standing information, read from ``<TX_SETUP>``."""

    role: str
    partner: str
    roles: tuple[str, str]
    n: int
    turn_limit: int
    original: Mapping[str, int]
    descriptions: tuple[str, ...]
    utilities: tuple[float, ...]

    @property
    def full(self) -> int:
        """The all-ones mask."""
        return (1 << self.n) - 1

    def fmt(self, mask: int) -> str:
        """``mask`` as a bit string."""
        return format(mask, f"0{self.n}b")

    def mask_of(self, description: str) -> int | None:
        """The mask of an exactly listed description."""
        try:
            return self.descriptions.index(description)
        except ValueError:
            return None


def _need(pattern: re.Pattern[str], text: str, what: str) -> re.Match[str]:
    m = pattern.search(text)
    if m is None:
        raise PolicyError(f"task-exchange stub: the prompt has no {what}")
    return m


def parse_setup(system: str) -> Setup:
    """The :class:`Setup` a Figure 7 system prompt states (``PolicyError`` naming what is
    missing otherwise)."""
    who = _need(_WHO, system, "'You are agent A. You negotiate with agent B' line")
    own = int(_need(_ORIGINAL, system, "'Your original task: \"...\" (mask=...)' line")
              .group(1), 2)
    n = int(_need(_N, system, "'Each N-bit mask' line").group(1))
    limit = int(_need(_LIMIT, system, "'Negotiation Flow (max T turns)' line").group(1))
    order = _need(_ROLES, system, "<PROPOSAL> template naming both roles")
    comps = sorted(((int(m, 2), d, float(u)) for d, m, u in _COMPOSITE.findall(system)),
                   key=lambda c: c[0])
    if [c[0] for c in comps] != list(range(1 << n)):
        raise PolicyError(f"task-exchange stub: the composite list must show all {1 << n} "
                          "masks once ('• description (mask=BITS, util=U) ++ complement: ...')")
    role, partner = who.group(1), who.group(2)
    full = (1 << n) - 1
    return Setup(role, partner, (order.group(1), order.group(2)), n, limit,
                 {role: own, partner: full ^ own}, tuple(c[1] for c in comps),
                 tuple(c[2] for c in comps))


def _proposal_of(text: str) -> dict[str, list[str]] | None:
    m = _PROPOSAL_RE.search(text)
    if m is None:
        return None
    try:
        data = json.loads(m.group(1))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    return {str(k): v if isinstance(v, list) else [v] for k, v in data.items()}


def parse_turn(text: str, partner: str, table: dict[str, list[str]] | None
               ) -> tuple[dict[str, Any], dict[str, list[str]] | None]:
    """The state one Figure 7 turn prompt states, and the partner's latest proposal after
    its dialogue lines (``table`` is the latest one before this message)."""
    m = _need(_TURN, text, "'You are agent A. Global Turn t/T, Agent Turn #k.' line")
    entries = list(_ENTRY.finditer(text))
    for i, e in enumerate(entries):
        end = entries[i + 1].start() if i + 1 < len(entries) else len(text)
        if e.group(2) == partner:
            found = _proposal_of(text[e.end():end])
            if found is not None:
                table = found
    if "This is your Agent Turn 1:" in text:
        phase, final = "consider", False
    elif "Send your own proposal inside" in text:
        phase, final = "propose", False
    elif "This is the final turn: answer" in text:
        phase, final = "respond", True
    elif "latest proposal with <ACCEPT>" in text:
        phase, final = "respond", False
    else:
        raise PolicyError("task-exchange stub: the turn prompt says neither to plan, to "
                          "propose nor to answer a proposal")
    state = {"role": m.group(1), "turn": int(m.group(2)), "turn_limit": int(m.group(3)),
             "agent_turn": int(m.group(4)), "phase": phase, "final": final,
             "table": table if phase == "respond" else None,
             "feedback": "invalid" if "was invalid and was NOT delivered" in text else None}
    return state, table


_USED = re.compile(r"\(attempt (\d+) of \d+ used\)")


def _used(prompt: str) -> int:
    """Failed attempts of its turn a (retry) prompt says were used before it."""
    found = _USED.search(prompt)
    return int(found.group(1)) if found else 0


def parse_mistakes(mistakes: str | Sequence[str]) -> tuple[str, ...]:
    """``"UNK+OVL*2"`` (or a list of codes) as a tuple of pattern codes."""
    parts = re.split(r"[+, ]+", mistakes) if isinstance(mistakes, str) else list(mistakes)
    out: list[str] = []
    for part in parts:
        if not part:
            continue
        code, _, times = part.partition("*")
        code = code.strip().upper()
        if code not in (*MISTAKES, "OK"):
            raise PolicyError(f"task-exchange stub: unknown mistake {code!r}; use "
                              f"{', '.join(MISTAKES)} or OK")
        out.extend([code] * (int(times) if times else 1))
    return tuple(out)


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class _Game:
    """What one request says about the negotiation so far, and the party's decisions."""

    def __init__(self, setup: Setup, request: PolicyRequest, aware: bool,
                 exponent: float) -> None:
        self.s, self.aware, self.exponent = setup, aware, exponent
        users = [str(m.get("content", "")) for m in request.messages if m.get("role") == "user"]
        replies = [str(m.get("content", "")) for m in request.messages
                   if m.get("role") == "assistant"]
        self.states = []
        table: dict[str, list[str]] | None = None
        for text in users:
            st, table = parse_turn(text, setup.partner, table)
            self.states.append(st)
        self.state = self.states[-1]
        self.rejected: set[int] = set()
        for i, reply in enumerate(replies[:len(self.states) - 1]):
            nxt = self.states[i + 1]
            if self.states[i].get("phase") == "consider" or nxt.get("feedback") is not None:
                continue
            split = self.split(_proposal_of(reply))
            if split is not None:  # the game went on, so this proposal was not accepted
                self.rejected.add(split[0])
        self.weights = self._partner_model()

    def split(self, table: Mapping[str, Any] | None) -> tuple[int, int] | None:
        """(own mask, partner mask) of a valid two-way split, else None."""
        if not table:
            return None
        masks = []
        for role in (self.s.role, self.s.partner):
            descs = table.get(role) or []
            mask = self.s.mask_of(str(descs[0])) if len(descs) == 1 else None
            if not mask:
                return None
            masks.append(mask)
        if masks[0] & masks[1] or masks[0] | masks[1] != self.s.full:
            return None
        return masks[0], masks[1]

    def _partner_model(self) -> list[float]:
        kept = [self.s.original[self.s.partner]]
        for st in self.states:
            split = self.split(st.get("table"))
            if split is not None:
                kept.append(split[1])
        return [(1 + sum(m >> i & 1 for m in kept)) / (2 + len(kept)) for i in range(self.s.n)]

    def estimate(self, partner_mask: int) -> float:
        """Estimated partner appetite for ``partner_mask`` (mean weight of its bits)."""
        bits = _bits(partner_mask)
        return sum(self.weights[i] for i in bits) / len(bits) if bits else 0.0

    @property
    def u0(self) -> float:
        """Utility of the original task (the disagreement outcome)."""
        return self.s.utilities[self.s.original[self.s.role]]

    def target(self) -> float:
        """The utility this party asks for at the current turn."""
        u = self.s.utilities
        best = max(u[m] for m in range(1, self.s.full))
        limit = int(self.state.get("turn_limit", self.s.turn_limit))
        tau = min(max((int(self.state["turn"]) - 2) / max(limit - 2, 1), 0.0), 1.0)
        return max(best - (best - self.u0) * tau ** self.exponent, self.u0)

    def plan(self) -> int:
        """The mask this party proposes to keep now."""
        u, full = self.s.utilities, self.s.full
        target = self.target()
        ok = [m for m in range(1, full) if u[m] >= target - _EPS]
        fresh = [m for m in ok if m not in self.rejected] or ok
        if self.aware:
            return max(fresh, key=lambda m: (self.estimate(full ^ m), u[m], -m))
        return max(fresh, key=lambda m: (u[m], -m))

    def proposal(self, mine: int) -> str:
        """The ``<PROPOSAL>`` block keeping ``mine``."""
        s = self.s
        body = {s.role: [s.descriptions[mine]], s.partner: [s.descriptions[s.full ^ mine]]}
        return "<PROPOSAL>" + json.dumps({r: body[r] for r in s.roles}, indent=2,
                                         ensure_ascii=False) + "</PROPOSAL>"


def _mistake(game: _Game, code: str, lead: str) -> str:
    s = game.s
    mine = game.plan()
    theirs = s.full ^ mine
    low = 1 << _bits(mine)[0]
    d = s.descriptions
    asg: dict[str, list[str]]
    if code == "UNK":
        asg = {s.role: [d[mine].rstrip(".") + " as soon as possible."], s.partner: [d[theirs]]}
    elif code == "MAT":
        if mine ^ low:
            asg = {s.role: [d[mine ^ low]], s.partner: [d[theirs]]}
        else:
            asg = {s.role: [d[mine]], s.partner: [d[theirs ^ (1 << _bits(theirs)[0])]]}
    elif code == "OVL":
        asg = {s.role: [d[mine]], s.partner: [d[theirs | low]]}
    elif code == "MDA":
        side, other = (mine, theirs) if len(_bits(mine)) > 1 else (theirs, mine)
        owner = s.role if side == mine else s.partner
        asg = {owner: [d[1 << b] for b in _bits(side)],
               (s.partner if owner == s.role else s.role): [d[other]]}
    elif code == "EMP":
        asg = {s.role: [d[s.full]], s.partner: []}
    else:
        body = json.dumps({s.role: [d[mine]], s.partner: [d[theirs]]}, indent=2,
                          ensure_ascii=False)
        return lead + (body if code == "MPT" else "<PROPOSAL>" + body)
    ordered = {r: asg.get(r, []) for r in s.roles}
    return lead + "<PROPOSAL>" + json.dumps(ordered, indent=2, ensure_ascii=False) + \
        "</PROPOSAL>"


@register_policy("task-exchange")
class TaskExchangePolicy(Policy):
    """A sensible utility-aware (or, without Rule 5, selfish) task-exchange party."""

    name = "task-exchange"

    def __init__(self, exponent: float = 1.0, mistakes: str | Sequence[str] = (),
                 aware: bool | None = None) -> None:
        if exponent <= 0:
            raise PolicyError(f"task-exchange stub: exponent must be positive, got {exponent}")
        self.exponent = float(exponent)
        self.mistakes = parse_mistakes(mistakes)
        self.aware = aware

    def respond(self, request: PolicyRequest) -> Outcome:
        """One Figure 7 reply for the turn the last user message states."""
        system = request.system()
        setup = parse_setup(system)
        aware = self.aware if self.aware is not None else "5. Be strategic" in system
        game = _Game(setup, request, aware, self.exponent)
        st = game.state
        u = setup.utilities
        if st.get("phase") == "consider":
            best = max(u[m] for m in range(1, setup.full))
            how = (f"reading what {setup.partner} asks for to find trades we both like"
                   if aware else "holding out for my best splits")
            return Reply(f"<CONSIDER>My original task {setup.fmt(setup.original[setup.role])} "
                         f"is worth {game.u0:.2f} to me and my best split {best:.2f}. Plan: "
                         f"start high and concede towards {game.u0:.2f}, {how}.</CONSIDER>")
        # a retry resends the turn's prompt with the feedback (the failed replies are not in
        # the session): a prompt that says "attempt K of N used" stands for K failed
        # attempts before it, so attempts so far = each earlier turn's (K + 1) + this K
        users = [str(m.get("content", "")) for m in request.messages if m.get("role") == "user"]
        done = _used(users[-1]) + sum(_used(text) + 1 for x, text in
                                      zip(game.states[:-1], users[:-1], strict=True)
                                      if x.get("phase") != "consider")
        respond = st.get("phase") == "respond"
        if done < len(self.mistakes) and self.mistakes[done] != "OK":
            lead = "<CONSIDER>sloppy on purpose</CONSIDER>\n" + (REJECT + "\n" if respond
                                                                   else "")
            return Reply(_mistake(game, self.mistakes[done], lead))
        target, plan = game.target(), game.plan()
        split = game.split(st.get("table")) if respond else None
        got = u[split[0]] if split is not None else None
        private = (f"<CONSIDER>Turn {st.get('turn')}: target {target:.2f}; keeping "
                   f"{setup.fmt(plan)} is worth {u[plan]:.2f}"
                   + (f"; the offer gives me {got:.2f}" if got is not None else "")
                   + ".</CONSIDER>\n")
        if respond and st.get("final"):
            ok = got is not None and got >= game.u0 - _EPS
            return Reply(private + (ACCEPT if ok else REJECT))
        if got is not None and got >= game.u0 - _EPS and \
                (got >= target - _EPS or got >= u[plan] - _EPS):
            return Reply(private + ACCEPT)
        return Reply(private + (REJECT + "\n" if respond else "") + game.proposal(plan))


_CALLS_AFTER = re.compile(r"no more and no fewer:\s*\n((?:- .*\n?)+)")
_PREF = re.compile(r'preferences: "(.*?)"\n', re.S)
_TASK = re.compile(r'Task: "(.*?)"\n', re.S)
_WORD = re.compile(r"[a-z]{3,}")
_STOP = frozenset({"you", "are", "very", "good", "the", "and", "for", "also", "with", "your",
                   "all", "any", "can", "but", "not"})


def _stems(text: str) -> set[str]:
    return {w[:3] for w in _WORD.findall(text.lower()) if w not in _STOP}


def _readable(call: str) -> str:
    name, _, args = call.partition("(")
    return name.replace("_", " ") + (f" ({args.rstrip(')')})" if args else "")


@register_policy("task-exchange-generator")
class TaskExchangeGeneratorPolicy(Policy):
    """Answers the scenario generator's description and score prompts by rule."""

    name = "task-exchange-generator"

    def respond(self, request: PolicyRequest) -> Outcome:
        """A ``<DESCRIPTION>`` or ``<SCORE>`` answer for the first user message's request."""
        users = [str(m.get("content", "")) for m in request.messages if m.get("role") == "user"]
        if not users:
            raise PolicyError("task-exchange-generator stub: no user message")
        ask = users[0]
        if "<DESCRIPTION>" in ask:
            m = _CALLS_AFTER.search(ask)
            if m is None:
                raise PolicyError("task-exchange-generator stub: no '- call' lines after "
                                  "'no more and no fewer:'")
            calls = [line[2:].strip() for line in m.group(1).splitlines() if line.strip()]
            text = "Please " + ", then ".join(_readable(c) for c in calls) + "."
            return Reply(f"<DESCRIPTION>{text}</DESCRIPTION>")
        if "<SCORE>" in ask:
            pref, task = _PREF.search(ask), _TASK.search(ask)
            if pref is None or task is None:
                raise PolicyError('task-exchange-generator stub: score request needs '
                                  'preferences: "..." and Task: "..." lines')
            wanted = _stems(pref.group(1))
            share = len(wanted & _stems(task.group(1))) / len(wanted) if wanted else 0.0
            return Reply(f"<SCORE>{round(5 + 95 * share)}</SCORE>")
        raise PolicyError("task-exchange-generator stub: the request asks for neither "
                          "<DESCRIPTION> nor <SCORE>")


__all__ = [
    "ACCEPT",
    "MISTAKES",
    "REJECT",
    "Setup",
    "TaskExchangeGeneratorPolicy",
    "TaskExchangePolicy",
    "parse_mistakes",
    "parse_setup",
    "parse_turn",
]
