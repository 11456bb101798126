"""An optional LLM leak judge: a second opinion on an LLM endpoint.

The judge is a session of the party's own side (it sees the party's private values, in
a system prompt set once per party so provider prefix caches hit) that reads one
outgoing message per call and answers ``<VERDICT>LEAK</VERDICT>`` or
``<VERDICT>NO_LEAK</VERDICT>`` with a ``<REASON>``. Prompts are the templates
``leak_judge_system.j2`` and ``leak_judge_turn.j2``. Each check is a fresh two-message
conversation, so checks are independent and the judge never accumulates history.

An endpoint failure or an unreadable verdict yields a :class:`JudgeVerdict` with
``leak=None`` and the error; callers fall back to the rules (the negotiator notes it).
With ``structured`` set in its config (the negotiator's own ``structured`` option), the
judge replies ``{"verdict": "LEAK"|"NO_LEAK", "reason": text}``, enforced by the endpoint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.agents import structured
from accord.agents.guards.detector import PrivateValue
from accord.agents.guards.quote import quote_counterpart
from accord.agents.tags import Grammar, parse_tags
from accord.agents.templates import render
from accord.core.moves import Malformed
from accord.llm import CallScope, GenerationConfig, LLMClient, LLMError

GRAMMAR = Grammar.of(data=["VERDICT"])
"""The judge's reply, read by structure in linear time (``REASON`` is free text)."""
_VERDICTS = {"LEAK": True, "NO_LEAK": False, "NO LEAK": False}


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's answer: ``leak`` is ``None`` when it could not decide."""

    leak: bool | None
    reason: str = ""
    error: str | None = None


def parse_leak_verdict(text: str) -> JudgeVerdict:
    """The verdict in a judge reply (``leak=None`` without exactly one readable verdict)."""
    parsed = parse_tags(text, GRAMMAR)
    found = [t for t in parsed.tags if t.name == "VERDICT" and t.closed]
    leak = _VERDICTS.get(found[0].text.upper()) if len(found) == 1 else None
    if leak is None or parsed.error("too_long", "unclosed") is not None:
        return JudgeVerdict(None, error="no single <VERDICT> with LEAK or NO_LEAK")
    why = parsed.first("REASON")
    return JudgeVerdict(leak, why.text if why is not None and why.closed else "")


#: the judge's reply with structured output on (``structured`` in its config)
SCHEMA = structured.obj({"verdict": structured.enum(["LEAK", "NO_LEAK"]),
                         "reason": structured.text()})


def read_leak_verdict(data: Mapping[str, Any] | Malformed) -> JudgeVerdict:
    """The verdict in a structured (JSON) judge reply (``leak=None`` if unreadable)."""
    if isinstance(data, Malformed) or data.get("verdict") not in ("LEAK", "NO_LEAK"):
        return JudgeVerdict(None, error="no JSON verdict LEAK or NO_LEAK")
    why = data.get("reason")
    return JudgeVerdict(data["verdict"] == "LEAK", why if isinstance(why, str) else "")


class LeakJudge:
    """Asks an LLM whether one party's message leaks its private values."""

    def __init__(self, client: LLMClient, config: GenerationConfig | None = None, *,
                 episode: str | None = None) -> None:
        self.client = client
        self.config = config or GenerationConfig(temperature=0.0, max_tokens=200)
        self.episode = episode
        self.calls = 0

    def system_prompt(self, role: str, batna: float, private: Sequence[PrivateValue],
                      public: Iterable[object] = ()) -> str:
        """The fixed system prompt for one party (its BATNA, weights and scores)."""
        fixed = [p for p in private if p.kind != "package"]
        unit = all(0.0 <= p.value <= 1.0 for p in fixed) and 0.0 <= batna <= 1.0
        return render("leak_judge_system.j2", role=role, batna=f"{batna:g}", private=fixed,
                      unit_scale=unit, public=[str(v) for v in public])

    async def check(self, text: str, *, role: str, batna: float,
                    private: Sequence[PrivateValue], public: Iterable[object] = ()
                    ) -> JudgeVerdict:
        """The judge's verdict on ``text`` (never raises for endpoint or reply faults)."""
        system = self.system_prompt(role, batna, private, public)
        packages = [f"{p.value:g}" for p in private if p.kind == "package"]
        user = render("leak_judge_turn.j2", packages=packages,
                      message=quote_counterpart(role, text))
        self.calls += 1
        scope = CallScope(episode=self.episode, agent=role, turn=self.calls)
        mode = structured.resolve_mode(self.config.structured, self.client.endpoint)
        config = self.config
        if mode != "off":  # the verdict as JSON, its shape enforced by the endpoint
            user += "\n\n" + render("structured_reply.j2", note=None,
                                     fields=structured.describe(SCHEMA))
            config = config.model_copy(update={"extra": {
                **config.extra, **structured.request_fields(mode, SCHEMA)}})
        try:
            done = await self.client.complete(
                [{"role": "system", "content": system}, {"role": "user", "content": user}],
                config, scope=scope)
        except LLMError as exc:
            return JudgeVerdict(None, error=f"{type(exc).__name__}: {exc}")
        if mode == "off":
            return parse_leak_verdict(done.text)
        return read_leak_verdict(structured.read_json(done.text, done.finish_reason))
