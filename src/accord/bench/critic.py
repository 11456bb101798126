"""A critic for repeated play (issue 29, GPT-Bargaining's AI-feedback loop).

After each episode of a series (:mod:`accord.bench.series`) a critic reads the episode as
one party saw it - the public moves and messages, the party's own result and BATNA, never
another party's private values - and writes feedback that the party's next episode carries
in its memory (:mod:`accord.agents.memory`). Two kinds:

* ``code``: a few rule-based sentences (no deal, a deal close to the BATNA, a late deal, a
  walk-out), deterministic;
* ``llm:MODEL``: a model given ``prompts/critic_system.j2`` and ``critic_turn.j2``; its
  answer (cut to :data:`MAX_FEEDBACK` characters) is the feedback. Cached like every call.

The feedback is recorded on the episode (``summary.series.feedback``) so its effect shows
in the series metrics.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from accord.domains import EpisodeSpec

#: feedback longer than this is cut (a critic's essay would crowd the party's prompt)
MAX_FEEDBACK = 1200


def public_lines(events: Sequence[Any]) -> list[str]:
    """The episode's public moves and messages as plain lines (what every party saw)."""
    lines = []
    for ev in events:
        d = ev if isinstance(ev, Mapping) else ev.to_dict()
        if d.get("kind") != "move":
            continue
        m, who, r = d.get("move") or {}, d.get("party"), d.get("round")
        kind = m.get("kind")
        pkg = m.get("package") or (m.get("counter") or {}).get("package")
        what = {"offer": "offers", "accept": "accepts", "walk": "walks away",
                "message": "says", "suggest": "suggests"}.get(str(kind), str(kind))
        if kind == "reject":
            what = "rejects" + (" and counters" if pkg else "")
        text = m.get("message") or m.get("text")
        line = f"round {r}, {who} {what}"
        if pkg:
            line += " " + ", ".join(f"{k}={v}" for k, v in pkg.items())
        if text:
            line += f' ("{str(text)[:200]}")'
        lines.append(line)
    return lines


class CodeCritic:
    """Rule-based feedback from the party's own result (deterministic)."""

    name = "code"

    def advise(self, role: str, spec: EpisodeSpec, summary: Mapping[str, Any],
               metrics: Mapping[str, Any] | None, events: Sequence[Any], index: int) -> str:
        """A few sentences on the party's latest episode."""
        from accord.bench.series import own_batna, own_value

        status, rounds = summary.get("status"), summary.get("rounds") or 0
        value, batna = own_value(summary, metrics, role), own_batna(summary, role)
        cap = spec.params.get("max_rounds")
        out = []
        if status == "agreement":
            if value is not None and batna is not None:
                margin = value - batna
                out.append(f"You agreed at {value:.3g}, {margin:+.3g} against your BATNA.")
                if margin < 0:
                    out.append("That is below your BATNA: never accept less than it.")
                elif margin < 0.1:
                    out.append("That is close to your BATNA: open higher and concede more "
                               "slowly next time.")
            if isinstance(cap, int) and rounds >= 0.8 * cap:
                out.append("The deal came late; a clearer offer earlier may save rounds.")
        elif summary.get("reason") == "walk" and summary.get("who") == role:
            out.append("You walked away; check that the offers on the table were really "
                       "below your BATNA before leaving.")
        else:
            out.append("No deal was reached; concede on the issues you care least about "
                       "earlier.")
        mine = sum(1 for e in events if (e if isinstance(e, Mapping) else e.to_dict())
                   .get("party") == role)
        if mine and len({*public_lines([e for e in events if (
                e if isinstance(e, Mapping) else e.to_dict()).get("party") == role])}) == 1:
            out.append("You repeated the same move every turn.")
        return " ".join(out)


class LLMCritic:
    """A model's feedback (see the module doc)."""

    def __init__(self, spec: str, llm: Mapping[str, Any] | None) -> None:
        from accord.agents.llm_base import llm_client
        from accord.agents.spec import parse_agent_list

        agent = parse_agent_list(spec)[0]
        if agent.kind != "llm":
            raise ValueError(f"--critic must be code or llm:MODEL, got {spec!r}")
        self.name = spec
        self.client, self.config = llm_client(agent, llm)

    def advise(self, role: str, spec: EpisodeSpec, summary: Mapping[str, Any],
               metrics: Mapping[str, Any] | None, events: Sequence[Any], index: int) -> str:
        """The model's feedback to ``role`` (its own view of the episode only)."""
        from accord.agents.templates import render
        from accord.bench.series import own_batna, own_value
        from accord.llm.types import CallScope

        system = render("critic_system.j2")
        turn = render("critic_turn.j2", role=role, scenario=spec.scenario,
                      lines=public_lines(events), status=summary.get("status"),
                      reason=summary.get("reason"), rounds=summary.get("rounds"),
                      value=own_value(summary, metrics, role), batna=own_batna(summary, role))
        scope = CallScope(episode=f"series-critic/{spec.scenario}/{spec.seed}",
                          agent=f"critic/{role}", turn=index + 1)

        async def ask() -> str:
            done = await self.client.complete(
                [{"role": "system", "content": system}, {"role": "user", "content": turn}],
                self.config, scope=scope)
            return done.text

        from accord.agents.replies import strip_private

        return strip_private(asyncio.run(ask())).strip()[:MAX_FEEDBACK]


def make_critic(spec: str | None, llm: Mapping[str, Any] | None) -> CodeCritic | LLMCritic:
    """The critic named by ``spec`` (``code`` or ``llm:MODEL``)."""
    if spec in (None, "", "code"):
        return CodeCritic()
    return LLMCritic(str(spec), llm)


__all__ = ["MAX_FEEDBACK", "CodeCritic", "LLMCritic", "make_critic", "public_lines"]
