"""Negotiator personas: the incentive a party's LLM negotiator plays (LLM-Deliberation's
``cooperative``, ``greedy``, ``untargeted_adv`` and ``targeted_adv``), one prompt file
each under ``prompts/personas/``. A scenario gives a party its persona
(``parties.NAME.persona``); the negotiator's system prompt carries the persona's text."""

from __future__ import annotations

#: the personas accord ships (file ``prompts/personas/<name>.j2``)
PERSONAS = ("cooperative", "greedy", "untargeted_adv", "targeted_adv")
#: personas that work against one named party (``target``)
TARGETED = ("targeted_adv",)


def check_persona(name: str, target: str) -> str | None:
    """Why ``name`` (with ``target``) is not a usable persona, or ``None``."""
    if name not in PERSONAS:
        return f"unknown persona {name!r}; use one of {', '.join(PERSONAS)}"
    if name in TARGETED and not target:
        return f"persona {name!r} needs a target (the party it works against)"
    return None


def persona_text(name: str, target: str = "") -> str:
    """The persona's instructions, as the negotiator's prompt carries them."""
    problem = check_persona(name, target)
    if problem is not None:
        raise ValueError(problem)
    from accord.agents.templates import render  # jinja2 only when a persona is rendered

    return render(f"personas/{name}.j2", target=target)


__all__ = ["PERSONAS", "TARGETED", "check_persona", "persona_text"]
