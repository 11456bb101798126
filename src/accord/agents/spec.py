"""Agent specs: how users name agents on the command line and in bench configs.

Grammar (documented in the README)::

    SPEC    := KIND [":" ARG] ["?" OPTION ("&" OPTION)*]
    OPTION  := KEY "=" VALUE

``KIND`` is a registered agent kind (``boulware``, ``llm``, ``rational``, ...). ``ARG`` is
the kind's main argument: for ``llm`` the model string (``llm:openai/gpt-4.1-mini``).
Options are typed by YAML rules (``0.2`` -> float, ``true`` -> bool). Example:
``llm:openai/gpt-4.1-mini?temperature=0.2&max_tokens=400``. On a shell, quote specs that
contain ``?`` or ``&``. In YAML configs an agent may also be a mapping
``{kind: boulware, e: 0.1}``. A list of specs on the command line is comma separated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.core.safeload import LoadError, parse_yaml, short


class AgentSpecError(ValueError):
    """An agent spec that cannot be parsed."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: ``kind``, optional ``arg`` and ``options``."""

    kind: str
    arg: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        out = self.kind + (f":{self.arg}" if self.arg else "")
        if self.options:
            out += "?" + "&".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return out

    def to_dict(self) -> dict[str, Any]:
        """Mapping form, as accepted in YAML configs."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.arg:
            out["arg"] = self.arg
        out.update(self.options)
        return out


def parse_agent_spec(spec: str | Mapping[str, Any] | AgentSpec) -> AgentSpec:
    """Parse one agent spec from its string or mapping form."""
    if isinstance(spec, AgentSpec):
        return spec
    if isinstance(spec, Mapping):
        data = dict(spec)
        kind = data.pop("kind", None)
        if not isinstance(kind, str) or not kind:
            raise AgentSpecError(f"agent mapping {short(dict(spec))} needs a 'kind' string")
        arg = data.pop("arg", None) or data.pop("model", None)
        return AgentSpec(kind, None if arg is None else str(arg), data)
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string, got {short(spec)}")
    text = spec.strip()
    head, _, query = text.partition("?")
    kind, _, arg = head.partition(":")
    if not kind:
        raise AgentSpecError(f"agent spec {short(spec)} has no kind before ':'")
    options: dict[str, Any] = {}
    if query:
        for part in query.split("&"):
            key, eq, raw = part.partition("=")
            if not eq or not key:
                raise AgentSpecError(
                    f"agent spec {short(spec)}: option {short(part)} must look like key=value")
            try:
                options[key] = parse_yaml(raw, f"option {key[:100]}").data if raw else ""
            except LoadError as exc:
                raise AgentSpecError(f"agent spec {short(spec)}: {exc}") from None
    return AgentSpec(kind, arg or None, options)


def parse_agent_list(text: str) -> list[AgentSpec]:
    """Parse a comma-separated list of agent specs (``boulware,conceder``)."""
    parts = [p for p in (s.strip() for s in text.split(",")) if p]
    if not parts:
        raise AgentSpecError("--agents needs at least one agent spec")
    return [parse_agent_spec(p) for p in parts]
