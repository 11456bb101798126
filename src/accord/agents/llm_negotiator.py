"""LLM negotiator, mediator and termination judge for the alternating-offers engine.

Registered as agent kind ``llm`` (``--agents llm:openai/gpt-4.1-mini?temperature=0.2``),
mediator kind ``llm`` (``--mediator llm:anthropic/...``) and judge kind ``llm``. Each is a
separate session (seed 002, "The LLM sessions") that can use a different model.

The negotiator's options beyond generation settings: ``guard=flag|block`` (flag, or also
withhold, public text that the leak guard finds disclosing the party's private values)
and ``guard_judge=MODEL`` (also ask an LLM leak judge,
:class:`~accord.agents.guards.judge.LeakJudge`, about every message the rules pass; off
by default), and ``floor_rule=true`` (a named prompt addition the seed does not have:
"never propose a package worse than your BATNA" beside the seed's "never accept"; off by
default). Prompt variants (issue 29; seed 002 on the position of constraints and the order
of information): ``constraints=both|start|end`` places the BATNA rule at the start and the
end of the system prompt (the seed's, default), only at the start or only at the end;
``order=offers-first|messages-first`` puts the new offers or the other parties' messages
first in each turn prompt. A bench spec sweeps them with ``prompts:``.

The prompts follow seed 002's text (the Stakeholder Agent's setup once, "Round {n}.
Current issue tracker ... Offer history ... Your move:" per call) and carry no
machine-readable block: the stub server's rule-based ``negotiator`` policy reads the same
text a model reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from accord.agents import structured as st
from accord.agents.base import Agent
from accord.agents.guards import Leak, PrivateValue, find_leaks, quote_counterpart
from accord.agents.guards.judge import LeakJudge
from accord.agents.llm_base import (
    OFF_LOOP_CHARS,
    LLMAgent,
    LLMConversation,
    llm_client,
    withhold,
)
from accord.agents.llm_support import runtime_for
from accord.agents.negotiator_prompts import (
    CONSTRAINTS,
    ORDERS,
    feedback_text,
    system_text,
    turn_text,
)
from accord.agents.registry import register_judge, register_mediator, register_negotiator
from accord.agents.replies import (
    parse_mediator_reply,
    parse_negotiation_reply,
    parse_verdict,
    strip_private,
)
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.agents.templates import render
from accord.agents.utility_render import (
    labelled_private_values,
    utility_payload,
)
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Suggest, Walk
from accord.llm import GenerationConfig, LLMClient, LLMError
from accord.protocols.base import Observation, Termination
from accord.protocols.engine import DEFAULT_MAX_RETRIES
from accord.protocols.judge import DECISIONS, JUDGE, JudgeVerdict, TerminationJudge
from accord.protocols.negotiation import MediatorObservation, NegotiationObservation


def _example(issues: Mapping[str, list[Any]]) -> str:
    return json.dumps({k: v[0] for k, v in issues.items()})


class LLMNegotiator(LLMAgent):
    """A stakeholder session: private utility and BATNA in the setup, data per call."""

    name = "llm"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 guard: str = "flag", max_retries: int = DEFAULT_MAX_RETRIES,
                 judge: LeakJudge | None = None, floor_rule: bool = False,
                 constraints: str = "both", order: str = "offers-first") -> None:
        if guard not in ("flag", "block"):
            raise ValueError("guard must be 'flag' or 'block'")
        if constraints not in CONSTRAINTS:
            raise ValueError(f"constraints must be one of {', '.join(CONSTRAINTS)}")
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}")
        self.guard_mode, self.judge = guard, judge
        self.floor_rule = floor_rule
        self.constraints, self.order = constraints, order
        super().__init__(client, config, episode=episode, max_retries=max_retries)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the session and what was already shown."""
        super().reset(rng)
        self._seen_offers = 0
        self._seen_messages = 0
        self._secrets: list[PrivateValue] = []

    def check(self, observation: Observation) -> NegotiationObservation:
        assert isinstance(observation, NegotiationObservation)
        return observation

    def system_prompt(self, obs: NegotiationObservation) -> str:
        """The Stakeholder Agent's setup (seed 002), sent once per session."""
        assert obs.space is not None and obs.utility is not None
        payload = utility_payload(obs.utility, obs.space, obs.batna)
        self._secrets = labelled_private_values(payload)
        return system_text(obs.role, [p for p in obs.parties if p != obs.role],
                           obs.issue_values(), payload, obs.batna, obs.max_rounds,
                           floor_rule=self.floor_rule, constraints=self.constraints,
                           discount=obs.discount, game=obs.game)

    def _move_context(self, obs: NegotiationObservation) -> dict[str, Any]:
        return {"round": obs.round, "max_rounds": obs.max_rounds, "move": obs.phase,
                "current": obs.current_offer, "proposer": obs.proposer}

    def turn_prompt(self, obs: NegotiationObservation) -> str:
        if obs.feedback is not None:
            return feedback_text(obs.feedback.reason, obs.feedback.feedback, obs.attempt,
                                 self.attempts(obs), **self._move_context(obs))
        new = [o.to_dict() for o in obs.history[self._seen_offers:]]
        msgs = [f"Round {r}: " + quote_counterpart(p, t)
                for r, p, t in obs.messages[self._seen_messages:] if p != obs.role]
        self._seen_offers, self._seen_messages = len(obs.history), len(obs.messages)
        return turn_text(new_offers=new, messages=msgs, order=self.order,
                         **self._move_context(obs))

    def parse(self, text: str, obs: NegotiationObservation) -> Move:
        issues = {k: list(v) for k, v in obs.issue_values().items()}
        return parse_negotiation_reply(text, issues, obs.phase, current=obs.current_offer)

    def reply_schema(self, obs: NegotiationObservation) -> Mapping[str, Any]:
        """The moves of this turn: offer or walk when proposing; accept, reject (the
        package is the counter-offer) or walk when answering; a full package always."""
        moves = ["offer", "walk"] if obs.phase == "propose" else ["accept", "reject", "walk"]
        package = st.obj({k: st.enum(v) for k, v in obs.issue_values().items()})
        return st.obj({"move": st.enum(moves), "package": package, "message": st.text()})

    def structured_note(self, obs: NegotiationObservation) -> str | None:
        if obs.phase == "propose":
            return "The package is your offer (with move walk it is ignored)."
        return ("With move reject, the package is your counter-offer; with accept or walk it "
                "is ignored.")

    def structured_move(self, data: Mapping[str, Any], obs: NegotiationObservation) -> Move:
        move = data.get("move")
        message = data.get("message")
        message = message.strip() or None if isinstance(message, str) else None
        package = data.get("package")
        legal = st.enum_of(self.reply_schema(obs), "move")
        if move not in legal:
            return Malformed("invalid_move", f"move must be one of {', '.join(legal)}; got "
                             f"{str(move)[:40]!r}.", raw=json.dumps(data)[:200])
        if move == "walk":
            return Walk(message or "walked away")
        if move == "accept":
            return Accept(message=message)
        if not isinstance(package, dict):
            return Malformed("invalid_json", "package must be an object with a value for "
                             "every issue.", raw=json.dumps(data)[:200])
        if move == "reject":
            return Reject(counter=Offer(package), message=message)
        return Offer(package, message=message)

    def reply_for(self, move: Move, obs: NegotiationObservation) -> str | None:
        """``move`` written as this agent's own reply (tags, or the structured JSON when
        structured output is on): a forked episode gives it the turns of a seat the
        parent's model did not play (:mod:`accord.protocols.fork`)."""
        message = getattr(move, "message", None) or (
            move.text if isinstance(move, Message) else None)
        package = move.package if isinstance(move, Offer) else (
            move.counter.package if isinstance(move, Reject) and move.counter else None)
        if self.structured_mode() != "off":
            kind = {Offer: "offer", Accept: "accept", Reject: "reject", Walk: "walk"}.get(
                type(move))
            if kind is None:
                return None
            return json.dumps({"move": kind, "package": dict(package or obs.current_offer or {}),
                               "message": message or (move.reason if isinstance(move, Walk)
                                                      else "") or ""})
        parts = []
        if isinstance(move, Walk):
            parts.append("<WALK/>")
        elif isinstance(move, Accept):
            parts.append("<ACCEPT/>")
        elif isinstance(move, Reject):
            parts.append("<REJECT/>")
        if package is not None:
            parts.append(f"<PROPOSAL>{json.dumps(dict(package))}</PROPOSAL>")
        text = message or (move.reason if isinstance(move, Walk) else None)
        if (text and not isinstance(move, Walk)) or isinstance(move, Message):
            parts.append(f"<MESSAGE>{text}</MESSAGE>")
        return "\n".join(parts) or None

    async def guard(self, move: Move, obs: NegotiationObservation) -> Move:
        if isinstance(move, Message):
            text: str | None = move.text
        elif isinstance(move, Walk):
            text = move.reason
        else:
            text = getattr(move, "message", None)
            if not text and isinstance(move, Reject) and move.counter is not None:
                text = move.counter.message
        if not text:
            return move
        assert obs.utility is not None
        # the party's utility of packages on the record is as private as its scores
        on_record = [obs.utility(r.package) for r in obs.history[-8:]]
        proposed = move.counter if isinstance(move, Reject) else move
        if isinstance(proposed, Offer):
            with contextlib.suppress(KeyError, TypeError):  # invalid packages fail later
                on_record.append(obs.utility(proposed.package))
        private = [*self._secrets, *(PrivateValue(float(u), "package",
                                                  f"the utility of a package on record ({u:.4g})")
                                     for u in on_record)]
        public = [v for vals in obs.issue_values().values() for v in vals]
        scan = functools.partial(find_leaks, text, obs.batna, private, public=public,
                                 role=obs.role, others=[p for p in obs.parties if p != obs.role])
        # linear, but a long message takes a while: off the event loop (issue 24)
        leaks = await asyncio.to_thread(scan) if len(text) >= OFF_LOOP_CHARS else scan()
        if not leaks and self.judge is not None:
            leaks = await self._ask_judge(text, obs, private, public)
        if not leaks:
            return move
        self.note("utility_leak", {
            "flag": True, "kinds": sorted({lk.kind for lk in leaks}),
            "matches": [lk.text for lk in leaks], "why": [lk.reason for lk in leaks],
            "blocked": self.guard_mode == "block"})
        return withhold(move) if self.guard_mode == "block" else move

    async def _ask_judge(self, text: str, obs: NegotiationObservation,
                         private: list[PrivateValue], public: list[Any]) -> list[Leak]:
        """The LLM leak judge's second opinion on text the rules passed."""
        assert self.judge is not None
        verdict = await self.judge.check(text, role=obs.role, batna=obs.batna, private=private,
                                         public=public)
        self.note("leak_judge", {"model": self.judge.client.model, "leak": verdict.leak,
                                 "reason": verdict.reason, "error": verdict.error})
        if verdict.leak:
            return [Leak("judge", text[:200], reason=f"LLM leak judge: {verdict.reason}")]
        return []


class LLMMediator(LLMAgent):
    """A mediator session: offers and trajectory only, never utilities."""

    name = "llm-mediator"
    #: the mediator's calls leave no ``llm_call`` notes (its usage is still counted)
    record_calls = False

    def check(self, observation: Observation) -> MediatorObservation:
        assert isinstance(observation, MediatorObservation) and observation.space is not None
        return observation

    def describe(self) -> str:
        return self.name

    @staticmethod
    def _issues(obs: MediatorObservation) -> dict[str, list[Any]]:
        assert obs.space is not None
        return {i.name: list(i.values) for i in obs.space.issues}

    def system_prompt(self, obs: MediatorObservation) -> str:
        issues = self._issues(obs)
        return render("mediator_system.j2", parties=list(obs.parties), issues=issues,
                      example=_example(issues))

    def turn_prompt(self, obs: MediatorObservation) -> str:
        return render("mediator_turn.j2", round=obs.round,
                      history=[o.to_dict() for o in obs.history[-12:]],
                      latest={p: dict(v) for p, v in obs.latest.items()},
                      messages=[quote_counterpart(p, t) for _, p, t in obs.messages[-6:]],
                      feedback=obs.feedback)

    def parse(self, text: str, obs: MediatorObservation) -> Move:
        return parse_mediator_reply(text)

    def reply_schema(self, obs: MediatorObservation) -> Mapping[str, Any]:
        """A full package to suggest and the rationale for it."""
        package = st.obj({k: st.enum(v) for k, v in self._issues(obs).items()})
        return st.obj({"package": package, "rationale": st.text()})

    def structured_move(self, data: Mapping[str, Any], obs: MediatorObservation) -> Move:
        package, why = data.get("package"), data.get("rationale")
        if not isinstance(package, dict):
            return Malformed("invalid_json", "package must be an object with a value for "
                             "every issue.", raw=json.dumps(data)[:200])
        return Suggest(package, rationale=why if isinstance(why, str) and why else None)

    def call_failed(self, exc: LLMError, who: str) -> Exception:
        return RuntimeError(f"LLM mediator call failed ({self.client.model}): "
                            f"{type(exc).__name__}: {exc}")


class JudgeFailure(RuntimeError):
    """An LLM judge that could not decide: its endpoint failed or its replies were unusable.

    The engine records it as an ``error`` ending with ``who="judge"`` and this message.
    """


class LLMJudge(LLMConversation, TerminationJudge):
    """An LLM termination judge (V15), one session per episode.

    An unreadable reply is sent back with targeted feedback, up to the episode's
    ``max_retries`` times per step; after that, or when the endpoint fails (HTTP 4xx,
    5xx after the client's retries, timeouts), :class:`JudgeFailure` ends the episode
    with an ``error`` record naming the judge.
    """

    name = "llm"
    #: the judge's calls leave no ``llm_call`` notes (its usage is still counted)
    record_calls = False

    def call_failed(self, exc: LLMError, who: str) -> Exception:
        return JudgeFailure(f"LLM judge call failed ({self.client.model}): "
                            f"{type(exc).__name__}: {exc}")

    #: the structured reply of the judge: the verdict and one sentence of reason
    SCHEMA = st.obj({"verdict": st.enum(list(DECISIONS)), "reason": st.text()})

    async def _ask(self, prompt: str, retry: bool = False
                   ) -> tuple[str, JudgeVerdict | None]:
        """One call: the reply's text and the verdict in it (``None``: none readable).
        A ``retry`` is clean unless ``retry=keep`` (:meth:`LLMSession.retry`). With
        structured output on, the call carries :attr:`SCHEMA` and the JSON is read."""
        assert self.session is not None
        if retry:
            prompt = self.session.retry(prompt, keep=self.client.retry_mode == "keep")
        else:
            self.session.base = prompt
        if self.structured_mode() == "off":
            text = (await self.complete(self.session, prompt, who=JUDGE)).text
            return text, parse_verdict(text)
        done, data = await self.complete_structured(self.session, prompt, self.SCHEMA,
                                                    who=JUDGE)
        if isinstance(data, Malformed) or data.get("verdict") not in DECISIONS:
            return done.text, None
        why = data.get("reason")
        return done.text, JudgeVerdict(data["verdict"], why if isinstance(why, str) else "")

    async def judge(self, view: dict[str, Any], proposed: Termination | None,
                    bounds: dict[str, Any]) -> JudgeVerdict:
        if self.session is None:
            self.session = self.open_session(render("judge_system.j2"), JUDGE)
        slim = {k: view.get(k) for k in ("round", "max_rounds", "phase", "current_offer",
                                          "verdicts", "ended")}
        said = "continue" if proposed is None else f"{proposed.status} ({proposed.reason})"
        attempts = int(bounds.get("max_retries") or 0) + 1
        text, verdict = await self._ask(render("judge_turn.j2", view=slim, proposed=said,
                                               bounds=bounds))
        for attempt in range(2, attempts + 1):
            if verdict is not None:
                return verdict
            problem = ("it holds no single <VERDICT> with continue, agreement or no_deal"
                       if self.structured_mode() == "off" else "it is not one JSON object "
                       "whose verdict is continue, agreement or no_deal")
            text, verdict = await self._ask(render(
                "judge_feedback.j2", attempt=attempt, max_attempts=attempts, problem=problem,
                structured=self.structured_mode() != "off"), retry=True)
        if verdict is None:
            clip = " ".join(strip_private(text).split())[:200]
            raise JudgeFailure(f"LLM judge ({self.client.model}) gave no readable verdict in "
                               f"{attempts} attempt(s); last reply: {clip!r}")
        return verdict


#: negotiator options that are not generation settings (guards and prompt variants)
GUARD_OPTIONS = ("guard", "guard_judge", "floor_rule", "constraints", "order")


def _client(spec: AgentSpec, ctx: Mapping[str, Any]) -> tuple[LLMClient, GenerationConfig]:
    return llm_client(spec, ctx.get("llm"), GUARD_OPTIONS)


def _negotiator(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    client, config = _client(spec, ctx)
    guard = str(spec.options.get("guard", "flag"))
    if guard not in ("flag", "block"):
        raise AgentSpecError(f"{spec}: guard must be 'flag' or 'block', got {guard!r}")
    judge = None
    model = spec.options.get("guard_judge")
    if model:
        # the leak judge answers in the negotiator's structured mode (resolved on its own
        # endpoint: auto is off where the judge's provider takes no schema)
        judge_config = GenerationConfig(temperature=0.0, max_tokens=200,
                                        structured=config.structured)
        try:
            judge_client = runtime_for(ctx.get("llm")).client(str(model))
            st.resolve_mode(judge_config.structured, judge_client.endpoint)
        except LLMError as exc:
            raise AgentSpecError(f"{spec}: guard_judge: {exc}") from None
        judge = LeakJudge(judge_client, judge_config, episode=ctx.get("episode_id"))
    floor = str(spec.options.get("floor_rule", "false")).strip().lower()
    if floor not in ("true", "false", "1", "0", "yes", "no"):
        raise AgentSpecError(f"{spec}: floor_rule must be true or false, got {floor!r}")
    variants = {"constraints": "both", "order": "offers-first"}
    for key, allowed in (("constraints", CONSTRAINTS), ("order", ORDERS)):
        if key in spec.options:
            value = str(spec.options[key])
            if value not in allowed:
                raise AgentSpecError(f"{spec}: {key} must be one of {', '.join(allowed)}, "
                                     f"got {value!r}")
            variants[key] = value
    return LLMNegotiator(client, config, episode=ctx.get("episode_id"), guard=guard,
                         judge=judge, floor_rule=floor in ("true", "1", "yes"),
                         constraints=variants["constraints"], order=variants["order"])


def _mediator(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    client, config = _client(spec, ctx)
    return LLMMediator(client, config, episode=ctx.get("episode_id"))


def _judge(spec: AgentSpec, ctx: Mapping[str, Any]) -> TerminationJudge:
    client, config = _client(spec, ctx)
    return LLMJudge(client, config, episode=ctx.get("episode_id"))


def sampled(spec: AgentSpec) -> bool | None:
    """Whether a model's replies vary with the seed: an in-process ``mock/`` model is a
    rule-based function of its prompt (deterministic at any temperature); any other model
    samples (stochastic) unless its spec sets ``temperature=0``, where nothing is declared
    (a real endpoint may still vary)."""
    if (spec.arg or "").startswith("mock/"):
        return False
    temperature = spec.options.get("temperature")
    return None if temperature is not None and temperature == 0 else True


register_negotiator("llm", _negotiator, stochastic=sampled)
register_mediator("llm", _mediator, stochastic=sampled)
register_judge("llm", _judge)

__all__ = ["JudgeFailure", "LLMJudge", "LLMMediator", "LLMNegotiator", "Walk", "parse_verdict"]
