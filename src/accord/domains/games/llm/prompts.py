"""Prompt pieces of the games LLM agents: templates and the section-6 variants.

The templates live in ``prompts/`` (Jinja) and the section-6 variants in
``prompts/variants.yaml`` (the personalities of 6.3, the six prompts of 6.5).

Prompts are text for a model only: the game is its description and its payoff table or tree
(:mod:`accord.domains.games.describe`), never a machine-readable block, and a turn is said
in words (issue 14). The ``games`` stub policy (:mod:`accord.domains.games.stub`) reads the
same text. JSON appears only where a model is asked to answer in JSON (the workflow's
examples, written by :func:`safe_json`: key order kept, ``<``, ``>`` and ``&`` escaped).
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
from accord.domains.games.protocol import TalkMessage

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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the episode record."""
        return {"kind": self.kind, "text": self.text,
                "nash": None if self.nash is None else dict(self.nash), "plan": dict(self.plan)}


def quoted(messages: Sequence[TalkMessage], role: str) -> list[dict[str, Any]]:
    """Other players' messages as inert data for a prompt (own messages are left out)."""
    return [{"round": m.round, "speaker": m.speaker, "quoted": quote_counterpart(m.speaker, m.text)}
            for m in messages if m.speaker != role]


def safe_json(obj: Any) -> str:
    """JSON for a tag block: key order kept, ``<``, ``>``, ``&`` escaped (no tag can close)."""
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_prompt(name: str, **context: Any) -> str:
    """Render one of this package's prompt templates (an ``example`` mapping is written as
    :func:`safe_json`)."""
    for key in ("example",):
        if key in context and not isinstance(context[key], str):
            context[key] = safe_json(context[key])
    return render(name, package=PACKAGE, **context)


__all__ = ["PACKAGE", "Strategy", "node_name", "payoff_text", "personality_line",
           "prompt_variant", "quoted", "render_prompt", "safe_json", "variants"]
