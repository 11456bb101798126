"""One LLM agent base for every domain: client, session, notes, errors, guards, retries.

A domain's LLM agent supplies only what is its own - the prompts
(:meth:`LLMAgent.system_prompt`, :meth:`LLMAgent.turn_prompt`) and the reply parser
(:meth:`LLMAgent.parse`), plus extras such as a disclosure guard (:meth:`LLMAgent.guard`)
or a step run before the turn's call (:meth:`LLMAgent.prepare`). This module owns the rest:

* :func:`llm_client` builds the client and generation config from an agent spec
  (``llm:MODEL?temperature=0.2``), refusing a missing model, an unknown option, an unknown
  provider and a missing SDK (``openai`` / ``anthropic`` not installed: install the
  ``llm`` extra) with an :class:`~accord.agents.spec.AgentSpecError` that says which;
* :class:`LLMConversation` owns the append-only sessions
  (:class:`~accord.agents.llm_support.LLMSession`), the ``llm_call`` note of every call
  (:func:`llm_call_note`, the reply without private reasoning) and error wrapping: a
  provider error becomes the agent's clean error (``RuntimeError`` naming the role, which
  the engine records as an ``error`` ending), or whatever :meth:`LLMConversation.call_failed`
  returns;
* :class:`LLMAgent` is the turn: open the session once, render the turn prompt (the
  retry prompt when ``observation.feedback`` is set), call, parse, guard. A reply the
  parser cannot read is a :class:`~accord.core.moves.Malformed` move that the engine turns
  into an invalid move (:func:`accord.protocols.engine.check_move`) and sends back with
  the parser's feedback; the attempts count against the engine's one retry budget,
  ``Observation.max_attempts`` (:meth:`LLMAgent.attempts` is what prompts quote).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from accord.agents import echo, structured
from accord.agents.llm_support import LLMSession, runtime_for, seed_base
from accord.agents.memory import with_memory
from accord.agents.replies import strip_private
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.agents.templates import render
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Walk
from accord.llm import Completion, GenerationConfig, LLMClient, LLMError
from accord.llm.generation import check_for_endpoint, generation_config
from accord.protocols.agent import Agent
from accord.protocols.base import Observation
from accord.protocols.engine import DEFAULT_MAX_RETRIES

#: how many characters of a reply an ``llm_call`` note keeps
NOTE_REPLY_CHARS = 2000
#: a reply at least this long is parsed in a worker thread, so even a reply at the length
#: cap (parsed in linear time, issue 24) never holds the event loop of a served game
OFF_LOOP_CHARS = 10_000

#: what a blocking disclosure guard sends instead of a withheld message
WITHHELD = "[message withheld by the disclosure guard]"

#: the wire APIs whose Python SDK accord imports to talk to them
SDKS = ("openai", "anthropic")


def missing_sdk(client: LLMClient) -> str | None:
    """The SDK package ``client``'s endpoint needs that is not installed, else ``None``."""
    sdk = client.endpoint.api
    if sdk in SDKS and importlib.util.find_spec(sdk) is None:
        return sdk
    return None


def check_model_spec(spec: AgentSpec, options: Collection[str] = (), *,
                     example: str = "openai/gpt-4.1-mini") -> GenerationConfig:
    """The generation config of an LLM agent spec, checked without any I/O.

    ``options`` are the spec options that configure the agent rather than the model; every
    other option must be a generation option. Raises :class:`AgentSpecError` naming the
    problem (no model, an unknown option).
    """
    if not spec.arg:
        raise AgentSpecError(f"{spec.kind} needs a model: e.g. {spec.kind}:{example}")
    session_options(spec)
    try:
        return generation_config({k: v for k, v in spec.options.items()
                                  if k not in options and k not in SESSION_OPTIONS})
    except ValueError as exc:
        hint = sorted({*options, *SESSION_OPTIONS})
        raise AgentSpecError(f"agent {spec}: {exc}; agent options: {hint}") from None


#: options every LLM agent kind takes that shape its sessions, not the model's sampling:
#: ``timeout`` (seconds per call), ``history`` (``all`` or N: the history window),
#: ``retry`` (``clean`` or ``keep``: what a retry after a failed reply sends)
SESSION_OPTIONS = ("timeout", "history", "retry")
#: the values of ``retry``
RETRY_MODES = ("clean", "keep")


#: the session options a run may set for every LLM agent (``--llm-option``, a bench
#: config's ``llm.options``); ``timeout`` has its own flag and key
RUN_SESSION_OPTIONS = ("history", "retry")


def check_run_options(options: Mapping[str, Any]) -> None:
    """Check a run's options for every LLM agent: generation settings and the session
    options :data:`RUN_SESSION_OPTIONS`; a ``ValueError`` names the problem."""
    session = {k: v for k, v in options.items() if k in RUN_SESSION_OPTIONS}
    if session:
        try:
            session_options(AgentSpec("llm", "run", session))
        except AgentSpecError as exc:
            raise ValueError(str(exc).removeprefix("agent llm:run?").split(": ", 1)[-1]) \
                from None
    try:
        generation_config({k: v for k, v in options.items() if k not in RUN_SESSION_OPTIONS})
    except ValueError as exc:
        raise ValueError(f"{exc}; session options: {', '.join(RUN_SESSION_OPTIONS)}") from None


def session_options(spec: AgentSpec) -> tuple[int | None, str]:
    """The history window (``None``: all) and retry mode of an LLM agent spec, checked."""
    history: int | None = None
    raw = spec.options.get("history", "all")
    if raw != "all":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
            raise AgentSpecError(f"agent {spec}: history must be 'all' or a whole number of "
                                 f"earlier exchanges to keep (1 or more), got {raw!r}")
        history = raw
    retry = spec.options.get("retry", "clean")
    if retry not in RETRY_MODES:
        raise AgentSpecError(f"agent {spec}: retry must be 'clean' (a retry resends the "
                             "turn's prompt with the feedback) or 'keep' (the failed reply "
                             f"stays in the session), got {retry!r}")
    return history, str(retry)


def llm_client(spec: AgentSpec, settings: Mapping[str, Any] | None,
               options: Collection[str] = (), *, example: str = "openai/gpt-4.1-mini"
               ) -> tuple[LLMClient, GenerationConfig]:
    """The model client and generation config of an LLM agent spec.

    ``settings`` are the run's LLM settings (``ctx["llm"]``: runtime, cache, cache mode,
    timeout, concurrency; see :func:`~accord.agents.llm_support.runtime_for`). Usage errors -
    no model, an unknown option (see :func:`check_model_spec`), an unknown provider, a
    missing key or base URL, a missing SDK - raise :class:`AgentSpecError` before any call.
    """
    spec = with_run_options(spec, settings, options)
    config = check_model_spec(spec, options, example=example)
    assert spec.arg is not None
    settings = dict(settings or {})
    if "timeout" in spec.options:  # this agent's own deadline per call
        settings["timeout"] = _timeout(spec)
    try:
        client = runtime_for(settings).client(spec.arg, config)
        client.log_prompts = bool(settings.get("log_prompts"))
        client.history, client.retry_mode = session_options(spec)
        check_for_endpoint(client.endpoint, config)
        structured.resolve_mode(config.structured, client.endpoint)
    except LLMError as exc:  # unknown provider, missing key or base URL, a setting the
        # provider cannot take: a usage error
        raise AgentSpecError(f"agent {spec}: {exc}") from None
    sdk = missing_sdk(client)
    if sdk is not None:
        raise AgentSpecError(f"agent {spec}: the {sdk!r} package is not installed; "
                             "install the LLM extra: pip install 'accord[llm]'")
    return client, config


def with_run_options(spec: AgentSpec, settings: Mapping[str, Any] | None,
                     options: Collection[str] = ()) -> AgentSpec:
    """``spec`` with the run's generation options under its own (``accord run --llm-option``,
    a bench config's ``llm.options``: ``settings["options"]``); the spec's own win."""
    run = dict((settings or {}).get("options") or {})
    run = {k: v for k, v in run.items() if k not in spec.options and k not in options}
    if not run:
        return spec
    return dataclasses.replace(spec, options={**run, **spec.options})


def _timeout(spec: AgentSpec) -> float:
    value = spec.options["timeout"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise AgentSpecError(f"agent {spec}: timeout must be a positive number of seconds, "
                             f"got {value!r}")
    return float(value)


def llm_call_note(done: Completion, reply: str, *, lead: Mapping[str, Any] | None = None,
                  detail: bool = False, seed: int | None = None) -> dict[str, Any]:
    """The data of an ``llm_call`` note: which call, model, latency, cache, tokens, reply.

    ``lead`` (e.g. ``{"call": "talk"}`` or ``{"module": "planning"}``) comes first;
    ``detail`` adds the finish reason and the cached prompt tokens. ``reply`` is the
    public text (private reasoning already removed), cut to :data:`NOTE_REPLY_CHARS`.
    """
    data: dict[str, Any] = {**(lead or {}), "model": done.model,
                            "latency": round(done.latency, 4), "from_cache": done.from_cache}
    if seed is not None:
        data["seed"] = seed
    if detail:
        data["finish_reason"] = done.finish_reason
    data["prompt_tokens"] = done.usage.prompt_tokens
    data["completion_tokens"] = done.usage.completion_tokens
    if detail:
        data["cached_tokens"] = done.usage.cached_tokens
    data["reply"] = reply[:NOTE_REPLY_CHARS]
    return data


#: what a reply cut off by its token budget is told, before the parser's own feedback
CUT_OFF = ("Your reply was cut off before it ended (it reached the token budget, "
           "max_tokens): answer shorter, with the move first.")


def cut_off(move: Malformed, done: Completion) -> Malformed:
    """``move`` with the cut-off feedback first when the reply hit its token budget
    (finish reason ``length``): the model is told why, not only what is missing."""
    if done.finish_reason != "length" or move.reason == "truncated":
        return move
    return dataclasses.replace(move, feedback=f"{CUT_OFF} {move.feedback or ''}".strip())


def withhold(move: Move, *, walk_reason: str | None = "walked away") -> Move:
    """``move`` without its public text: what a disclosure guard in ``block`` mode sends.

    A message becomes :data:`WITHHELD`; a walk keeps only ``walk_reason``; offers, accepts
    and rejects (and a reject's counter-offer) lose their message.
    """
    if isinstance(move, Message):
        return Message(WITHHELD)
    if isinstance(move, Walk):
        return Walk(walk_reason)
    if isinstance(move, Reject) and move.counter is not None:
        return dataclasses.replace(move, message=None,
                                   counter=dataclasses.replace(move.counter, message=None))
    if isinstance(move, (Offer, Accept, Reject)):
        return dataclasses.replace(move, message=None)
    return move


class LLMConversation:
    """A model's sessions in one episode, with ``llm_call`` notes and error wrapping.

    The part of :class:`LLMAgent` that is not a turn: also used by LLM parts that are not
    agents (the termination judge) and by helpers an agent owns (Deal-or-No-Deal's chat).
    """

    #: leave an ``llm_call`` note for every call
    record_calls: bool = True
    #: add finish reason and cached tokens to the ``llm_call`` notes
    detailed_notes: bool = False
    #: what the sessions' sampling seeds derive from (set by :meth:`LLMAgent.reset`)
    seeds: tuple[Any, ...] | None = None

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        self.client, self.config, self.episode = client, config, episode
        self.max_retries = max_retries
        self.forget()

    def forget(self) -> None:
        """Drop the session and the undrained notes (a new episode)."""
        self.session: LLMSession | None = None
        self._notes: list[dict[str, Any]] = []

    def attempts(self, obs: Observation) -> int:
        """The turn's attempt budget the prompts quote: the engine's, from the observation
        (``max_retries + 1`` only before the engine has said it, on a turn's first call)."""
        return obs.max_attempts or self.max_retries + 1

    def open_session(self, system: str, agent: str) -> LLMSession:
        """A new append-only session with this fixed system prompt, scoped to ``agent``
        (in a series, the party's memory of earlier episodes follows the system prompt:
        :mod:`accord.agents.memory`)."""
        return LLMSession(self.client, with_memory(system, agent), self.config, self.episode,
                          agent, seeds=self.seeds)

    def public_reply(self, text: str) -> str:
        """What of a reply may be logged (default: without ``<THINK>``-style private text)."""
        return strip_private(text)

    def call_failed(self, exc: LLMError, who: str) -> Exception:
        """The error a failed call raises (the engine records it as an ``error`` ending)."""
        return RuntimeError(f"LLM call failed for {who}: {type(exc).__name__}: {exc}")

    async def complete(self, session: LLMSession, prompt: str, *, who: str,
                       lead: Mapping[str, Any] | None = None,
                       extra: Mapping[str, Any] | None = None) -> Completion:
        """Append ``prompt`` to ``session``, call the model (``extra``: body fields of this
        call), note the call, return the reply."""
        try:
            done = await session.ask(prompt, extra)
        except LLMError as exc:
            raise self.call_failed(exc, who) from exc
        if self.record_calls:
            data = self.call_note(done, lead, seed=session.last_seed)
            if session.left_out:  # the history window left earlier exchanges out
                data["history_left_out"] = session.left_out
            if self.client.log_prompts:  # the exact messages this call added (--log-prompts)
                data["prompt"] = [{"role": m["role"], "content": self.client.redact(m["content"])}
                                  for m in session.sent]
            self.note("llm_call", data)
        return done

    def structured_mode(self) -> str:
        """``off``, ``json_schema`` or ``grammar``: what this conversation sends on its
        endpoint for ``structured=...`` (see :func:`accord.agents.structured.resolve_mode`)."""
        return structured.resolve_mode(self.config.structured, self.client.endpoint)

    async def complete_structured(self, session: LLMSession, prompt: str,
                                  schema: Mapping[str, Any], *, who: str,
                                  lead: Mapping[str, Any] | None = None,
                                  note: str | None = None
                                  ) -> tuple[Completion, dict[str, Any] | Malformed]:
        """One call with structured output on: ``prompt`` gains the reply's fields
        (``structured_reply.j2``, with ``note`` under them), the request carries ``schema``
        (as a JSON schema or GBNF grammar, :meth:`structured_mode`), and the reply is read
        as JSON (:func:`accord.agents.structured.read_json`: the object, or a
        :class:`~accord.core.moves.Malformed` move with feedback)."""
        mode = self.structured_mode()
        prompt = prompt.rstrip() + "\n\n" + render(
            "structured_reply.j2", fields=structured.describe(schema), note=note)
        done = await self.complete(session, prompt, who=who, lead=lead,
                                   extra=structured.request_fields(mode, schema))
        return done, structured.read_json(done.text, done.finish_reason)

    def call_note(self, done: Completion, lead: Mapping[str, Any] | None, *,
                  seed: int | None = None) -> dict[str, Any]:
        """The data of this call's ``llm_call`` note (see :func:`llm_call_note`)."""
        return llm_call_note(done, self.public_reply(done.text), lead=lead,
                             detail=self.detailed_notes, seed=seed)

    def note(self, name: str, data: Mapping[str, Any]) -> None:
        """Leave a note for the trajectory (``"flag": True`` in ``data`` counts it)."""
        self._notes.append({"name": name, "data": dict(data)})

    def drain_notes(self) -> list[dict[str, Any]]:
        """Notes since the last call."""
        notes, self._notes = self._notes, []
        return notes

    def usage(self) -> dict[str, Any]:
        """Token usage and cost of the session in its episode (empty before any call)."""
        return self.session.usage() if self.session else {}


class LLMAgent(LLMConversation, Agent):
    """An agent that asks a model for each move; a domain supplies prompts and parser.

    One session per agent and episode: :meth:`system_prompt` once, then per call
    :meth:`turn_prompt` (which renders the retry prompt when ``observation.feedback`` is
    set, quoting :meth:`attempts`). The reply goes through :meth:`parse`; a parsed move
    (not a :class:`~accord.core.moves.Malformed` one) through :meth:`guard`.
    """

    name = "llm"
    #: keep failed attempts (prompt and broken reply) in the session on a retry, as
    #: accord did before 0.2 (default: the retry resends the turn's prompt with feedback)
    keep_failed_replies: bool = False

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        LLMConversation.__init__(self, client, config, episode=episode,
                                 max_retries=max_retries)
        self._turn_prompt: str | None = None
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the session, the notes and anything the subclass keeps per episode."""
        super().reset(rng)
        self.seeds = seed_base(rng)
        self._turn_prompt = None
        self.forget()

    def describe(self) -> str:
        """``<kind>:<model>``."""
        return f"{self.name}:{self.client.model}"

    # -- what a domain supplies ----------------------------------------------------------
    def system_prompt(self, obs: Any) -> str:
        """The session's fixed system prompt (role, private data, rules, reply format)."""
        raise NotImplementedError

    def turn_prompt(self, obs: Any) -> str:
        """This call's user message: the news since the last call, or the retry feedback."""
        raise NotImplementedError

    def parse(self, text: str, obs: Any) -> Move:
        """The move in a reply, or a :class:`~accord.core.moves.Malformed` one with feedback."""
        raise NotImplementedError

    def check(self, observation: Observation) -> Any:
        """The observation, checked to be the domain's kind (raise ``TypeError`` if not)."""
        return observation

    async def prepare(self, obs: Any) -> None:
        """Run before the turn's call (a workflow agent derives its strategy here)."""
        return None

    async def guard(self, move: Move, obs: Any) -> Move:
        """The move to send instead of ``move`` (a disclosure guard may flag or withhold)."""
        return move

    def call_lead(self, obs: Any) -> Mapping[str, Any] | None:
        """Fields that lead this turn's ``llm_call`` note (e.g. which call it is)."""
        return None

    def reply_schema(self, obs: Any) -> Mapping[str, Any] | None:
        """The JSON schema of this turn's valid replies for structured output (see
        :mod:`accord.agents.structured`); ``None``: this agent has none (tags only)."""
        return None

    def structured_move(self, data: Mapping[str, Any], obs: Any) -> Move:
        """The move a reply in :meth:`reply_schema`'s shape expresses (or ``Malformed``)."""
        raise NotImplementedError

    def structured_note(self, obs: Any) -> str | None:
        """A sentence added under the structured reply's field list (e.g. how to counter)."""
        return None

    # -- the turn ------------------------------------------------------------------------
    async def ask(self, obs: Any, prompt: str, lead: Mapping[str, Any] | None = None,
                  extra: Mapping[str, Any] | None = None) -> Completion:
        """One call in the agent's session (opened with :meth:`system_prompt` if needed)."""
        if self.session is None:
            self.session = self.open_session(self.system_prompt(obs), obs.role)
        return await self.complete(self.session, prompt, who=obs.role, lead=lead,
                                   extra=extra)

    async def act(self, observation: Observation) -> Move:
        """Ask the model for this turn's move, parse the reply, guard the move.

        With structured output on (and a :meth:`reply_schema` for the turn), the turn's
        schema or grammar goes with the request, the prompt ends with the reply's fields,
        and the JSON reply is read by :meth:`structured_move` instead of :meth:`parse`.
        """
        obs = self.check(observation)
        if self.session is None:
            self.session = self.open_session(self.system_prompt(obs), obs.role)
        await self.prepare(obs)
        prompt = self.retry_prompt(obs, self.session)
        mode = self.structured_mode()
        schema = self.reply_schema(obs) if mode != "off" else None
        if schema is None:
            done = await self.ask(obs, prompt, self.call_lead(obs))
            move = await self.read_reply(done.text, obs)
        else:
            done, data = await self.complete_structured(
                self.session, prompt, schema, who=obs.role, lead=self.call_lead(obs),
                note=self.structured_note(obs))
            move = data if isinstance(data, Malformed) else self.structured_move(data, obs)
        if isinstance(move, Malformed):
            return cut_off(move, done)
        return await self.guard(move, obs)

    async def read_reply(self, text: str, obs: Any) -> Move:
        """The move in a tagged reply: a template placeholder is malformed, lines that
        repeat the prompt's instructions are dropped (:mod:`accord.agents.echo`), the rest
        goes to :meth:`parse` (off the event loop for long replies)."""
        assert self.session is not None
        msgs = self.session.messages
        lines = echo.instruction_lines([msgs[0]["content"], msgs[-2]["content"]])
        text, dropped = echo.unecho(text, lines)
        found = echo.placeholder(text)
        if found is not None:
            return echo.echoed(found, dropped)
        if len(text) >= OFF_LOOP_CHARS:  # linear, but not free: off the loop
            move = await asyncio.to_thread(self.parse, text, obs)
        else:
            move = self.parse(text, obs)
        return echo.echoed(move, dropped) if isinstance(move, Malformed) else move

    def retry_prompt(self, obs: Any, session: LLMSession) -> str:
        """This call's user message. A retry (``obs.feedback`` set) does not show the model
        its own failed reply again: the failed attempt (prompt and reply) is taken out of
        the session and the turn's original prompt is sent again with the feedback, so
        retry k does not see k-1 copies of a broken answer. :attr:`keep_failed_replies`
        keeps the failed attempts in the session instead."""
        prompt = self.turn_prompt(obs)
        if getattr(obs, "feedback", None) is None or self._turn_prompt is None:
            self._turn_prompt = prompt
            return prompt
        if self.keep_failed_replies or self.client.retry_mode == "keep":
            return prompt
        msgs = session.messages
        if len(msgs) >= 3 and msgs[-1]["role"] == "assistant" and msgs[-2]["role"] == "user":
            del msgs[-2:]
        return self._turn_prompt.rstrip() + "\n\n" + prompt.lstrip()


__all__ = [
    "OFF_LOOP_CHARS",
    "RETRY_MODES",
    "SESSION_OPTIONS",
    "WITHHELD",
    "LLMAgent",
    "LLMConversation",
    "check_model_spec",
    "check_run_options",
    "llm_call_note",
    "llm_client",
    "missing_sdk",
    "session_options",
    "withhold",
]
