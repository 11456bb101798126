"""What the seats of a stored episode hold, for layouts that group by model: the agent kind,
the model inside an LLM agent spec and the spec's options (e.g. its temperature)."""

from __future__ import annotations

from typing import Any

from accord.agents.spec import AgentSpecError, parse_agent_spec


def agent_model(spec: str) -> tuple[str, str, dict[str, Any]]:
    """``(kind, model, options)`` of an agent spec: the model inside an LLM spec
    (``llm:openai/gpt-4o?temperature=1`` -> ``("llm", "openai/gpt-4o", {...})``), the spec
    itself for a code agent (kind ``code``)."""
    try:
        a = parse_agent_spec(spec)
    except AgentSpecError:
        return "code", spec, {}
    if a.kind.startswith("llm"):
        return a.kind, str(a.options.get("model") or a.arg), dict(a.options)
    return "code", spec, dict(a.options)


__all__ = ["agent_model"]
