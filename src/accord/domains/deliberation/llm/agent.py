"""The reference LLM agent of the deliberation benchmark (paper section 3, Figure 2).

Each turn runs the modules in order, each an LLM call in its own append-only session:

1. **observation** - estimate the state from the observation and the dialog
   (recorded for HR and NMAE_pub; an unusable estimate is asked for again once, then the
   previous estimate - or one from the own observation alone - is kept, with a note);
2. **planning** - propose a menu / allocation on that estimate (with tools: Solver and
   Calculator on the estimate, called by the model or run automatically);
3. **decision** - when another agent's proposal is on the table, accept it or not; the
   task-allocation leader also decides whether to end the deliberation (finalize);
4. **conversation** - when nothing was accepted or decided, the message sent with the
   agent's proposal (the protocol truncates it to the character limit).

Moves: ``Accept`` (decision accepted), ``Decide`` (leader finalizes; in the centralized
baseline the planning result is the decision), otherwise ``Offer(proposal, message)``.
An unusable planning, decision or conversation reply becomes ``Malformed``; the engine
retries the turn with feedback, and the agent re-asks the module that failed (or, for a
move the protocol refused, the module that produced the refused part).

With ``structured=json_schema|grammar`` every module's call carries the JSON schema of its
answer, derived from the instance (:mod:`accord.domains.deliberation.llm.structured`), and
the JSON reply is read into the same estimate, plan, verdict, tool call or message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.agents.llm_base import LLMAgent, cut_off
from accord.agents.llm_support import LLMSession
from accord.agents.templates import render
from accord.core.moves import Accept, Decide, Malformed, Move, Offer
from accord.domains.deliberation.agents.recording import DeliberationRecorder
from accord.domains.deliberation.llm.prompts import (
    PACKAGE,
    dialog_lines,
    feedback_prompt,
    state,
    system_prompt,
    table,
    tool_result_prompt,
    turn_prompt,
)
from accord.domains.deliberation.llm.replies import (
    Plan,
    ToolCall,
    Verdict,
    parse_estimate,
    parse_message,
    parse_plan,
    parse_verdict,
)
from accord.domains.deliberation.llm.structured import (
    estimate_schema,
    message_schema,
    plan_schema,
    read_estimate,
    read_message,
    read_plan,
    read_verdict,
    verdict_schema,
)
from accord.domains.deliberation.llm.tools import (
    TOOL_USES,
    auto_tools,
    fallback_estimate,
    run_tool,
)
from accord.domains.deliberation.protocol import DeliberationObservation
from accord.llm import GenerationConfig, LLMClient, UsageTotals
from accord.protocols.base import Invalid, Observation


@dataclass
class _Turn:
    """What the modules produced so far in the current turn (kept across retries)."""

    key: tuple[int, int]
    estimate: dict[str, Any] = field(default_factory=dict)
    plan: Plan | None = None
    verdict: Verdict | None = None
    message: str = ""
    resume: str = "observation"


def _package(setting: str, proposal: Any) -> dict[str, Any]:
    """A proposal as an ``Offer`` package (a menu becomes ``{dish: 1}``)."""
    return dict(proposal) if setting == "task-allocation" else dict.fromkeys(proposal, 1)


class LLMDeliberator(LLMAgent, DeliberationRecorder):
    """The four-module LLM scaffold for every deliberation setting and mode."""

    name = "llm"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 tool_use: str = "call", max_tool_calls: int = 3,
                 estimate_retries: int = 1) -> None:
        if tool_use not in TOOL_USES:
            raise ValueError(f"tool_use must be one of {list(TOOL_USES)}, got {tool_use!r}")
        if max_tool_calls < 0 or estimate_retries < 0:
            raise ValueError("max_tool_calls and estimate_retries must be >= 0")
        self.tool_use, self.max_tool_calls = tool_use, max_tool_calls
        self.estimate_retries = estimate_retries
        super().__init__(client, config, episode=episode)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.clear_records()
        self.sessions: dict[str, LLMSession] = {}
        self._seen: dict[str, int] = {}
        self._turn: _Turn | None = None
        self._estimate: dict[str, Any] | None = None
        self._usage = UsageTotals()

    # -- plumbing ------------------------------------------------------------------------

    async def _ask(self, module: str, obs: DeliberationObservation, prompt: str,
                   schema: Mapping[str, Any] | None = None, *, retry: bool = False
                   ) -> str | dict[str, Any] | Malformed:
        """One call in the module's own session (each module is a session of its own).

        The reply's text; with a ``schema`` (structured output on) the call carries it and
        the answer is the reply's JSON object, or ``Malformed`` when it is not one.
        ``retry``: ``prompt`` is feedback on the module's failed reply (a clean retry
        unless the agent option ``retry=keep``, :meth:`LLMSession.retry`)."""
        session = self.sessions.get(module)
        if session is None:
            system = system_prompt(module, obs, self.tool_use, self.max_tool_calls)
            session = self.open_session(system, f"{obs.role}/{module}")
            self.sessions[module] = session
        if retry:
            prompt = session.retry(prompt, keep=self.client.retry_mode == "keep")
        else:
            session.base = prompt
        who, lead = f"{obs.role} ({module} module)", {"module": module}
        out: str | dict[str, Any] | Malformed
        if schema is None:
            done = await self.complete(session, prompt, who=who, lead=lead)
            out = done.text
        else:
            note = render("structured_note.j2", PACKAGE, module=module, setting=obs.setting,
                          tools="tool" in schema.get("properties", {}),
                          leader=obs.role == obs.leader)
            done, out = await self.complete_structured(session, prompt, schema, who=who,
                                                       lead=lead, note=note or None)
            if isinstance(out, Malformed):
                out = cut_off(out, done)
        # counted here, not looked up by (episode, agent): runs without an episode id
        # share a runtime, and their calls must not add up across episodes
        self._usage.add(done, self.client.runtime.tracker.prices.cost(done.model, done.usage))
        return out

    def _structured(self) -> bool:
        return self.structured_mode() != "off"

    async def _answer(self, module: str, obs: DeliberationObservation, prompt: str,
                      parse: Callable[[str], Any],
                      schema: Callable[[], Mapping[str, Any]] | None = None,
                      read: Callable[[Mapping[str, Any]], Any] | None = None, *,
                      retry: bool = False) -> Any:
        """Ask and read the answer: ``parse`` a tagged reply, or with structured output on
        send ``schema()`` and ``read`` the JSON reply (see :mod:`.structured`); ``retry``:
        ``prompt`` is feedback on a failed reply (see :meth:`_ask`)."""
        if schema is None or read is None or not self._structured():
            reply = await self._ask(module, obs, prompt, retry=retry)
            assert isinstance(reply, str)
            return parse(reply)
        data = await self._ask(module, obs, prompt, schema(), retry=retry)
        if isinstance(data, Malformed):
            return data
        assert isinstance(data, dict)
        return read(data)

    def _new_lines(self, module: str, obs: DeliberationObservation) -> list[str]:
        start = self._seen.get(module, 0)
        self._seen[module] = len(obs.dialog)
        return dialog_lines(obs, start)

    def _calls(self, obs: DeliberationObservation) -> int:
        return self.max_tool_calls if obs.tools and self.tool_use == "call" else 0

    def _auto(self, obs: DeliberationObservation, module: str, est: dict[str, Any],
              proposal: Any = None) -> list[dict[str, Any]]:
        if not obs.tools or self.tool_use != "auto":
            return []
        outs = auto_tools(obs.shared, est, proposal)
        for out in outs:
            self.record_tool(obs.round, {**out, "module": module, "via": "auto"})
        return outs

    async def _tool_loop(self, module: str, obs: DeliberationObservation, turn: _Turn,
                         prompt: str, st: dict[str, Any], parse: Callable[[str], Any],
                         schema: Callable[[bool], Mapping[str, Any]] | None = None,
                         read: Callable[[Mapping[str, Any]], Any] | None = None,
                         retry: bool = False) -> Any:
        """Ask; run the tools the model calls (within budget) until it answers.

        With structured output, ``schema(tools)`` is the reply's schema (``tools``: a tool
        call is still possible) and ``read`` reads the JSON reply; ``retry``: the first
        prompt is feedback on a failed reply."""
        left = self._calls(obs)
        while True:
            shape = None if schema is None else functools.partial(schema, left > 0)
            out = await self._answer(module, obs, prompt, parse, shape, read, retry=retry)
            retry = False
            if not isinstance(out, ToolCall):
                return out
            if left <= 0:
                why = "all tool calls of this step are used" if self._calls(obs) else \
                    "tools are not available in this episode"
                return Malformed("tool_unavailable", f"You called a tool, but {why}: answer "
                                 "now in the required format.", raw=out.name)
            left -= 1
            result = run_tool(out, obs.shared, turn.estimate)
            self.record_tool(obs.round, {**result, "module": module, "via": "call"})
            self.note("tool_call", {"module": module, "tool": out.name,
                                    "ok": "error" not in result})
            prompt = tool_result_prompt(result, left, {**st, "tools_left": left})

    def _prompt(self, module: str, obs: DeliberationObservation, st: dict[str, Any],
                feedback: Invalid | None, lines: list[str] | None = None,
                tool_results: list[dict[str, Any]] | None = None) -> str:
        if feedback is not None:
            return feedback_prompt(feedback.reason, feedback.feedback, obs.attempt, st)
        return turn_prompt(module, obs, lines or [], st, tool_results or [])

    # -- the modules ---------------------------------------------------------------------

    async def _observation(self, obs: DeliberationObservation, turn: _Turn,
                           feedback: Invalid | None) -> Move | None:
        st = state(obs, "observation")
        def ask(prompt: str, retry: bool = False) -> Any:
            return self._answer("observation", obs, prompt,
                                lambda text: parse_estimate(text, obs.setting),
                                lambda: estimate_schema(obs),
                                lambda data: read_estimate(data, obs), retry=retry)

        est = await ask(self._prompt("observation", obs, st, None,
                                     self._new_lines("observation", obs)))
        for attempt in range(2, self.estimate_retries + 2):
            if not isinstance(est, Malformed):
                break
            est = await ask(feedback_prompt(est.reason, est.feedback, attempt, st), True)
        if isinstance(est, Malformed):
            self.note("estimate_fallback", {
                "flag": True, "reason": est.reason, "kept": "previous" if self._estimate
                else "own_observation"})
            est = self._estimate if self._estimate is not None else fallback_estimate(obs)
        self._estimate = turn.estimate = est
        self.record_estimate(obs.round, est)
        return None

    async def _planning(self, obs: DeliberationObservation, turn: _Turn,
                        feedback: Invalid | None) -> Move | None:
        st = state(obs, "planning", estimate=turn.estimate, final=obs.mode == "single",
                   tools_left=self._calls(obs))
        auto = self._auto(obs, "planning", turn.estimate) if feedback is None else []
        out = await self._tool_loop("planning", obs, turn,
                                    self._prompt("planning", obs, st, feedback, None, auto), st,
                                    lambda text: parse_plan(text, obs.setting),
                                    lambda tools: plan_schema(obs, tools),
                                    lambda data: read_plan(data, obs),
                                    feedback is not None)
        if isinstance(out, Malformed):
            return out
        turn.plan = out
        return None

    async def _decision(self, obs: DeliberationObservation, turn: _Turn,
                        feedback: Invalid | None) -> Move | None:
        assert turn.plan is not None
        leader = obs.mode == "leader" and obs.role == obs.leader
        tb = table(obs)
        can_accept = tb is not None and "accept" in obs.legal
        st = state(obs, "decision", estimate=turn.estimate, my_proposal=turn.plan.proposal,
                   table=tb, can_accept=can_accept, can_finalize=leader,
                   tools_left=self._calls(obs))
        auto = self._auto(obs, "decision", turn.estimate, tb["proposal"] if tb else None) \
            if feedback is None else []
        lines = self._new_lines("decision", obs)
        out = await self._tool_loop("decision", obs, turn,
                                    self._prompt("decision", obs, st, feedback, lines, auto), st,
                                    lambda text: parse_verdict(text, obs.setting, leader),
                                    lambda tools: verdict_schema(obs, leader, tools),
                                    lambda data: read_verdict(
                                        data, leader, tb["proposal"] if tb else None),
                                    feedback is not None)
        if isinstance(out, Malformed):
            return out
        turn.verdict = out
        if out.accept and can_accept:
            return Accept(out.explanation or "I accept the proposal on the table.")
        if out.finalize and leader:
            final = out.final_decision if out.final_decision is not None else turn.plan.proposal
            return Decide(final, out.explanation or turn.plan.explanation or None)
        return None

    async def _conversation(self, obs: DeliberationObservation, turn: _Turn,
                            feedback: Invalid | None) -> Move | None:
        assert turn.plan is not None
        verdict = None if turn.verdict is None else {
            "accept_decision": turn.verdict.accept, "explanation": turn.verdict.explanation}
        st = state(obs, "conversation", estimate=turn.estimate, my_proposal=turn.plan.proposal,
                   table=table(obs), decision=verdict)
        lines = self._new_lines("conversation", obs)
        msg = await self._answer("conversation", obs,
                                 self._prompt("conversation", obs, st, feedback, lines),
                                 parse_message, lambda: message_schema(obs), read_message,
                                 retry=feedback is not None)
        if isinstance(msg, Malformed):
            return msg
        turn.message = msg
        return None

    # -- the turn ------------------------------------------------------------------------

    def _stages(self, obs: DeliberationObservation) -> list[str]:
        if obs.mode == "single":
            return ["observation", "planning"]
        decide = (table(obs) is not None and "accept" in obs.legal) or "decide" in obs.legal
        return ["observation", "planning", *(["decision"] if decide else []), "conversation"]

    async def act(self, observation: Observation) -> Move:
        obs = observation
        if not isinstance(obs, DeliberationObservation):
            raise TypeError(f"the deliberation LLM agent needs a DeliberationObservation, got "
                            f"{type(obs).__name__}")
        key = (obs.round, len(obs.dialog))
        turn = self._turn
        if obs.feedback is not None and turn is not None and turn.key == key:
            start, feedback = turn.resume, obs.feedback
        else:
            self._turn = turn = _Turn(key)
            start, feedback = "observation", None
        stages = self._stages(obs)
        for stage in stages[stages.index(start) if start in stages else 0:]:
            run = getattr(self, f"_{stage}")
            move = await run(obs, turn, feedback if stage == start else None)
            if move is not None:
                turn.resume = stage
                return move
        assert turn.plan is not None
        turn.resume = "planning"  # a refused proposal goes back to the planning module
        if obs.mode == "single":
            return Decide(turn.plan.proposal, turn.plan.explanation or None)
        return Offer(_package(obs.setting, turn.plan.proposal), turn.message)

    def usage(self) -> dict[str, Any]:
        return self._usage.to_dict() if self._usage.calls else {}
