"""Prompt pieces of the games LLM agents: templates, variants and the machine-readable blocks.

The templates live in ``prompts/`` (Jinja) and the section-6 variants in
``prompts/variants.yaml`` (the personalities of 6.3, the six prompts of 6.5).

Two machine-readable blocks go into every session; they are the contract with the rule-based
``games`` stub policy (:mod:`accord.testing.stub.games` documents them field by field):

* ``<GAME>{json}</GAME>`` once, in the system prompt: the game in the issue-5 file format
  without its catalog name, description or notes (the notes state the equilibria, which
  a model must work out itself);
* ``<GAME_STATE>{json}</GAME_STATE>`` in every user message: the role, the phase (``workflow``,
  ``negotiation`` or ``play``), the workflow step, the messages so far, the moves so far,
  the legal actions, the derived strategy and the prompt variant.

The blocks are written by :func:`safe_json` (key order kept, ``<``, ``>`` and ``&``
escaped), so text inside them (other players' messages) can never close a tag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from accord.agents.guards import quote_counterpart
from accord.agents.templates import render
from accord.core.safeload import parse_yaml
from accord.domains.games.describe import fmt_number
from accord.domains.games.io import dump_game
from accord.domains.games.model import Game, NormalFormGame
from accord.domains.games.protocol import GameObservation, TalkMessage

PACKAGE = "accord.domains.games"
_ADJECTIVE = re.compile(r"^[A-Za-z][A-Za-z-]{0,29}$")


@lru_cache(maxsize=1)
def variants() -> dict[str, Any]:
    """The parsed ``prompts/variants.yaml`` (personalities and the six prompt variants)."""
    text = (resources.files(PACKAGE) / "prompts" / "variants.yaml").read_text(encoding="utf-8")
    data = parse_yaml(text, "games/prompts/variants.yaml").data
    prompts = {int(k): " ".join(str(v).split()) for k, v in data["prompts"].items()}
    return {"personalities": [str(p) for p in data["personalities"]], "prompts": prompts}


def personality_line(personality: str | None) -> str | None:
    """The section-6.3 system-prompt line for ``personality`` (``None``: no line)."""
    if personality is None or personality == "":
        return None
    if not _ADJECTIVE.match(str(personality)):
        known = ", ".join(variants()["personalities"])
        raise ValueError(f"personality must be one adjective (letters or hyphens, at most 30 "
                         f"characters), got {personality!r}; the seed's six: {known}")
    return render("personality.jinja", package=PACKAGE, personality=str(personality))


def prompt_variant(number: int | None) -> str | None:
    """The section-6.5 prompt ``number`` (1-6) appended to action prompts; 0/None: none."""
    if number is None or number == 0:
        return None
    table = variants()["prompts"]
    if isinstance(number, bool) or not isinstance(number, int) or number not in table:
        raise ValueError(f"prompt must be one of {sorted(table)} (seed 003, section 6.5) or 0 "
                         f"for none, got {number!r}")
    return str(table[number])


def public_game(game: Game) -> dict[str, Any]:
    """The ``<GAME>`` block: the game's rules and payoffs only (no name, description, notes)."""
    data = dump_game(game)
    keep = ("type", "players", "actions", "payoffs") if isinstance(game, NormalFormGame) else (
        "type", "players", "tree")
    return {k: data[k] for k in keep}


def node_name(path: Sequence[str]) -> str:
    """``/`` for the root, ``/a/b`` for the node after actions ``a`` then ``b``."""
    return "/" + "/".join(path)


def payoff_text(players: Sequence[str], values: Sequence[Any]) -> str:
    """``Alice 3, Bob -1`` for a payoff vector."""
    return ", ".join(f"{p} {fmt_number(v) if not isinstance(v, str) else v}"
                     for p, v in zip(players, values, strict=True))


@dataclass(frozen=True)
class Strategy:
    """The strategy a workflow derived, as shown in every later prompt (seed 003, 4.4).

    ``kind`` is ``simultaneous`` or ``sequential``; ``text`` the model's own summary;
    ``nash`` the equilibrium profile it found (player -> action) or ``None``; ``plan`` its
    planned action at each of its decision nodes (node name -> action).
    """

    kind: str
    text: str
    nash: Mapping[str, str] | None = None
    plan: Mapping[str, str] = field(default_factory=dict)

    def view(self, role: str) -> dict[str, Any]:
        """Template variables for ``strategy.jinja``."""
        return {"kind": self.kind, "text": self.text, "nash": dict(self.nash or {}),
                "nash_text": "(" + ", ".join(f"{p}: {a}" for p, a in (self.nash or {}).items())
                + ")", "own": (self.nash or {}).get(role),
                "plan": dict(self.plan),
                "plan_text": "; ".join(f"at {n} {a}" for n, a in self.plan.items())}

    def block(self) -> dict[str, Any]:
        """The structured part for the ``<GAME_STATE>`` block."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "simultaneous":
            out["nash"] = None if self.nash is None else dict(self.nash)
        else:
            out["plan"] = dict(self.plan)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the episode record."""
        return {"kind": self.kind, "text": self.text,
                "nash": None if self.nash is None else dict(self.nash), "plan": dict(self.plan)}


def quoted(messages: Sequence[TalkMessage], role: str) -> list[dict[str, Any]]:
    """Other players' messages as inert data for a prompt (own messages are left out)."""
    return [{"round": m.round, "speaker": m.speaker, "quoted": quote_counterpart(m.speaker, m.text)}
            for m in messages if m.speaker != role]


def state_block(obs: GameObservation, *, phase: str | None = None, step: str | None = None,
                strategy: Strategy | None = None, variant: int = 0,
                extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``<GAME_STATE>`` JSON for one call (see :mod:`accord.testing.stub.games`)."""
    out: dict[str, Any] = {
        "role": obs.role, "player_index": obs.player_index, "phase": phase or obs.phase,
        "step": step, "negotiation_round": obs.negotiation_round,
        "negotiation_rounds": obs.negotiation_rounds, "first_speaker": obs.first_speaker,
        "messages": [m.to_dict() for m in obs.messages],
        "history": [[p, a] for p, a in obs.history], "node": list(obs.node),
        "actions": list(obs.actions), "strategy": None if strategy is None else strategy.block(),
        "prompt_variant": variant,
        "retry": None if obs.feedback is None else {"reason": obs.feedback.reason,
                                                    "attempt": obs.attempt}}
    out.update(extra or {})
    return out


def safe_json(obj: Any) -> str:
    """JSON for a tag block: key order kept, ``<``, ``>``, ``&`` escaped (no tag can close)."""
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_prompt(name: str, **context: Any) -> str:
    """Render one of this package's prompt templates (``state``, ``game`` and ``example``
    mappings are written as :func:`safe_json`)."""
    for key in ("state", "game", "example"):
        if key in context and not isinstance(context[key], str):
            context[key] = safe_json(context[key])
    return render(name, package=PACKAGE, **context)


__all__ = ["PACKAGE", "Strategy", "node_name", "payoff_text", "personality_line",
           "prompt_variant", "public_game", "quoted", "render_prompt", "safe_json", "state_block",
           "variants"]
