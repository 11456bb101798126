"""The LLM session plumbing shared by the Deal-or-No-Deal LLM agents.

:class:`DondChat` owns one append-only :class:`~accord.agents.llm_support.LLMSession`:
the system prompt (role, counts, own values, round cap, reply format, non-negotiable
rules at the start and again at the end) is set once; each call appends only what changed
since the agent's last turn (the partner's moves, its text quoted with
:func:`~accord.agents.guards.quote_counterpart`), the table and optional extra blocks (the
assisted workflow's belief state). Prompts are plain text for a model: no machine-readable
block exists for a stub (the ``dond`` stub policy, :mod:`accord.domains.deal_or_no_deal.stub`, reads
the same text). After an invalid move the engine asks again with ``observation.feedback``;
the retry prompt carries the protocol's targeted feedback (and the assisted belief state).
With ``structured=json_schema|grammar`` the turn's reply schema goes with each call and
the JSON reply is read into the same move (:mod:`accord.domains.deal_or_no_deal.llm.
structured`).

Every call leaves an ``llm_call`` note (reply without private reasoning) and, when the
public text states one of the agent's own values, a flagged ``utility_leak`` note;
``guard="block"`` also withholds that text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.agents import echo
from accord.agents.guards import quote_counterpart
from accord.agents.llm_base import WITHHELD, LLMConversation, cut_off, withhold
from accord.agents.templates import render
from accord.core.moves import Malformed, Message, Move, Reject, Walk
from accord.domains.deal_or_no_deal.deal_tag import format_deal_body, package_of
from accord.domains.deal_or_no_deal.llm.replies import parse_reply, value_leaks
from accord.domains.deal_or_no_deal.llm.structured import belief_block, read_move, reply_schema
from accord.domains.deal_or_no_deal.protocol import DondObservation
from accord.domains.deal_or_no_deal.rules import complement, utility
from accord.llm import GenerationConfig, LLMClient
from accord.protocols.engine import DEFAULT_MAX_RETRIES

PACKAGE = "accord.domains.deal_or_no_deal"


def partner_events(obs: DondObservation, since: int) -> list[dict[str, Any]]:
    """The partner's public moves in ``obs.history[since:]``, ready for the turn template."""
    items = obs.items
    out = []
    for ev in obs.history[since:]:
        if ev.get("role") == obs.role:
            continue
        row: dict[str, Any] = {"round": ev.get("round"), "kind": ev.get("kind"), "text": None,
                               "share": None, "left": None, "rejected": None}
        if ev.get("share") is not None:
            share = tuple(int(ev["share"][i]) for i in items)
            row["share"] = format_deal_body(ev["share"], items)
            row["left"] = format_deal_body(package_of(complement(obs.counts, share), items),
                                           items)
        if ev.get("rejected") is not None:
            row["rejected"] = "you take " + format_deal_body(ev["rejected"], items)
        if ev.get("text"):
            row["text"] = quote_counterpart(obs.partner, str(ev["text"]))
        out.append(row)
    return out


class DondChat(LLMConversation):
    """One agent's model session in a Deal-or-No-Deal episode (see the module docstring)."""

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 system_template: str, guard: str = "flag",
                 max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        if guard not in ("flag", "block"):
            raise ValueError(f"guard must be 'flag' or 'block', got {guard!r}")
        self.system_template = system_template
        self.guard = guard
        super().__init__(client, config, episode=episode, max_retries=max_retries)

    def reset(self) -> None:
        """Forget the session, the notes and what was already shown."""
        self.forget()

    def forget(self) -> None:
        super().forget()
        self.seen = 0
        self.last_reply = ""
        #: where the seed mode reads the model's belief: the reply, or with structured
        #: output its ``belief`` rows as a ``<BELIEF>`` block
        self.belief_source = ""

    def system_prompt(self, obs: DondObservation, **extra: Any) -> str:
        """The session's fixed system prompt for this observation's role and game."""
        return render(self.system_template, package=PACKAGE, role=obs.role,
                      partner=obs.partner, items=list(obs.items), counts=list(obs.counts),
                      values=list(obs.values), total=utility(obs.values, obs.counts),
                      max_rounds=obs.max_rounds, **extra)

    def prompt(self, obs: DondObservation, *, belief: str | None = None,
               show_points: bool = False, seed: bool = False) -> str:
        """This call's user message: a retry with feedback, or the turn's news and table.

        ``seed`` (the seed mode of ``llm-workflow``) asks for the ``<BELIEF>`` statement.
        """
        if obs.feedback is not None:
            return render("llm_feedback.jinja", package=PACKAGE, reason=obs.feedback.reason,
                          feedback=obs.feedback.feedback, attempt=obs.attempt,
                          max_attempts=self.attempts(obs),
                          belief=belief, seed=seed)
        events = partner_events(obs, self.seen)
        self.seen = len(obs.history)
        items = obs.items
        mine = obs.offer_for_you
        return render(
            "llm_turn.jinja", package=PACKAGE, round=obs.round, max_rounds=obs.max_rounds,
            last_turn=obs.last_turn, partner=obs.partner, events=events,
            offer_to_me=None if mine is None else format_deal_body(mine, items),
            partner_share=None if obs.offer is None else format_deal_body(obs.offer, items),
            points=(utility(obs.values, [mine[i] for i in items])
                    if show_points and mine is not None else None),
            my_offer=None if obs.my_offer is None else format_deal_body(obs.my_offer, items),
            belief=belief, seed=seed)

    async def move(self, obs: DondObservation, *, system_extra: Mapping[str, Any] | None = None,
                   belief: str | None = None, show_points: bool = False,
                   seed: bool = False) -> Move:
        """Ask the model for this turn's move and parse it (``Malformed`` if unreadable).

        The raw reply of the call is kept in :attr:`last_reply` (the seed mode reads the
        model's ``<BELIEF>`` from it).
        """
        if self.session is None:
            self.session = self.open_session(self.system_prompt(obs, **(system_extra or {})),
                                             obs.role)
        text = self.prompt(obs, belief=belief, show_points=show_points, seed=seed)
        if obs.feedback is None:
            self.session.base = text
        else:  # clean retry unless the agent option retry=keep (LLMSession.retry)
            text = self.session.retry(text, keep=self.client.retry_mode == "keep")
        if self.structured_mode() != "off":
            return await self._structured(obs, text, seed=seed)
        done = await self.complete(self.session, text, who=obs.role)
        self.last_reply = self.belief_source = done.text
        reply, dropped = echo.unecho(done.text, echo.instruction_lines(
            [self.session.messages[0]["content"], text]))
        found = echo.placeholder(reply)  # a template copied from HOW TO REPLY
        if found is not None:
            return echo.echoed(found, dropped)
        move = parse_reply(reply, obs.items, offer_for_you=obs.offer_for_you,
                           responding=obs.offer_for_you is not None)
        if isinstance(move, Malformed):
            return echo.echoed(move, dropped)
        return self._guard(move, obs)

    async def _structured(self, obs: DondObservation, text: str, *, seed: bool) -> Move:
        """The turn with structured output: the reply's JSON schema (the legal moves, every
        item's count range, the seed mode's belief rows) goes with the request, and the
        JSON reply becomes the same typed move (see :mod:`.structured`)."""
        assert self.session is not None
        note = render("structured_note.jinja", package=PACKAGE, partner=obs.partner,
                      belief=seed)
        done, data = await self.complete_structured(
            self.session, text, reply_schema(obs, belief=seed), who=obs.role, note=note)
        self.last_reply = done.text
        if isinstance(data, Malformed):
            self.belief_source = ""
            return cut_off(data, done)
        self.belief_source = belief_block(data, obs.items)
        move = read_move(data, obs)
        return move if isinstance(move, Malformed) else self._guard(move, obs)

    def _guard(self, move: Move, obs: DondObservation) -> Move:
        public = _public_text(move)
        leaks = value_leaks(public, obs.values, obs.items) if public else []
        if not leaks:
            return move
        self.note("utility_leak", {"flag": True, "kinds": ["value_statement"],
                                   "matches": leaks, "blocked": self.guard == "block"})
        return move if self.guard == "flag" else withhold(move, walk_reason=WITHHELD)

    def drain(self) -> list[dict[str, Any]]:
        """Notes since the last call."""
        return self.drain_notes()


def _public_text(move: Move) -> str:
    if isinstance(move, Message):
        return move.text
    if isinstance(move, Walk):
        return move.reason or ""
    if isinstance(move, Reject) and move.counter is not None:
        return move.counter.message or ""
    return getattr(move, "message", None) or ""
