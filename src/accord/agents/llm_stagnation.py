"""The seed's optional Stagnation Scorer as an LLM session (``--stagnation llm:MODEL``).

Seed 002, "The LLM sessions": *Stagnation Scorer (optional, may be code) — "you decide
whether the last K rounds show meaningful concession"; the ε threshold; output contract
(STAGNANT / MOVING); input: the last K rounds' offers.* The scorer sees only public
offers (:class:`~accord.protocols.negotiation.StagnationObservation`), never utilities.

:func:`parse_stagnation_reply` reads the contract: exactly one ``<VERDICT>STAGNANT</VERDICT>``
or ``<VERDICT>MOVING</VERDICT>`` (case and surrounding whitespace ignored), optionally with a
``<REASON>`` (free text). Only the verdict tag counts (issue 24): the words in the reason,
in any other text or in private reasoning never do, so "they are clearly not STAGNANT"
is no verdict. Anything else is a :class:`~accord.core.moves.Malformed` move: the engine
sends it back with the feedback below up to the episode's ``max_retries`` times, then ends
the episode with status ``error`` naming the ``stagnation`` role. With
``structured=json_schema|grammar`` the reply is ``{"verdict": "STAGNANT"|"MOVING",
"reason": text}`` instead, enforced by the endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.agents import structured as st
from accord.agents.base import Agent
from accord.agents.llm_base import LLMAgent
from accord.agents.registry import register_stagnation_scorer
from accord.agents.replies import strip_private
from accord.agents.spec import AgentSpec
from accord.agents.tags import Grammar, parse_tags
from accord.agents.templates import render
from accord.core.moves import Assess, Malformed, Move
from accord.llm import Completion, GenerationConfig, LLMClient, LLMError
from accord.protocols.base import Observation
from accord.protocols.negotiation import StagnationObservation
from accord.protocols.stagnation import STAGNATION_ROLE

VERDICTS = ("STAGNANT", "MOVING")
FEEDBACK = ("Answer with exactly one verdict tag: <VERDICT>STAGNANT</VERDICT> or "
            "<VERDICT>MOVING</VERDICT> (a short <REASON>...</REASON> may follow).")
GRAMMAR = Grammar.of(data=["VERDICT"], once=["VERDICT"])
"""The grammar of a scorer's reply (``REASON`` is free text and never a verdict)."""


def _problem(text: str) -> str | None:
    parsed = parse_tags(text, GRAMMAR)
    err = parsed.error("too_long", "unclosed", "duplicate")
    if err is not None:
        return err.feedback
    found = parsed.first("VERDICT")
    if found is None:
        return "it holds no <VERDICT> tag (words outside the tag do not count)"
    if found.text.upper() not in VERDICTS:
        return f"the <VERDICT> tag holds {found.text[:40]!r}, not STAGNANT or MOVING"
    return None


def parse_stagnation_reply(text: str) -> Move:
    """An :class:`Assess` move from a scorer's reply, or :class:`Malformed` with feedback."""
    why = _problem(text or "")
    if why is not None:
        return Malformed("bad_stagnation_verdict", f"Your reply could not be used: {why}. "
                         f"{FEEDBACK}", raw=strip_private(text or "")[:500])
    parsed = parse_tags(text, GRAMMAR)
    found = parsed.first("VERDICT")
    assert found is not None
    word = found.text.upper()
    return Assess(word == "STAGNANT", reason=f"scorer said {word}")


class LLMStagnationScorer(LLMAgent):
    """One scorer session per episode: the rule in the setup, the last K rounds per call."""

    name = "llm-stagnation"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None):
        super().__init__(client, config, episode=episode)

    def describe(self) -> str:
        return f"llm:{self.client.model}"

    def check(self, observation: Observation) -> StagnationObservation:
        assert isinstance(observation, StagnationObservation)
        assert observation.role == STAGNATION_ROLE
        return observation

    def system_prompt(self, obs: StagnationObservation) -> str:
        """The scorer's setup: role, ε threshold, issues, output contract."""
        assert obs.space is not None
        issues = {i.name: list(i.values) for i in obs.space.issues}
        return render("stagnation_system.j2", parties=list(obs.parties), rounds=obs.rounds,
                      epsilon=f"{obs.epsilon:g}", measure=obs.measure, issues=issues)

    def turn_prompt(self, obs: StagnationObservation) -> str:
        """The per-call part: the last K rounds' offers (and feedback on a retry)."""
        return render("stagnation_turn.j2", round=obs.round, rounds=obs.rounds,
                      offers=[o.to_dict() for o in obs.offers], feedback=obs.feedback)

    def parse(self, text: str, obs: StagnationObservation) -> Move:
        return parse_stagnation_reply(text)

    def reply_schema(self, obs: StagnationObservation) -> Mapping[str, Any]:
        """Structured output: the verdict (STAGNANT or MOVING) and a short reason."""
        return st.obj({"verdict": st.enum(list(VERDICTS)), "reason": st.text()})

    def structured_move(self, data: Mapping[str, Any], obs: StagnationObservation) -> Move:
        word = data.get("verdict")
        if word not in VERDICTS:
            return Malformed("bad_stagnation_verdict", "verdict must be STAGNANT or MOVING; "
                             f"got {str(word)[:40]!r}.", raw=st.raw(data))
        return Assess(word == "STAGNANT", reason=f"scorer said {word}")

    def call_note(self, done: Completion, lead: Mapping[str, Any] | None, *,
                  seed: int | None = None) -> dict[str, Any]:
        """The scorer's short note: model, cache hit, seed and the first 500 characters."""
        return {"model": done.model, "from_cache": done.from_cache,
                **({"seed": seed} if seed is not None else {}),
                "reply": strip_private(done.text)[:500]}

    def call_failed(self, exc: LLMError, who: str) -> Exception:
        return RuntimeError(f"LLM stagnation scorer call failed ({self.client.model}): "
                            f"{type(exc).__name__}: {exc}")


def _scorer(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    from accord.agents.llm_negotiator import _client

    client, config = _client(spec, ctx)
    return LLMStagnationScorer(client, config, episode=ctx.get("episode_id"))


register_stagnation_scorer("llm", _scorer)

__all__ = ["LLMStagnationScorer", "parse_stagnation_reply"]
