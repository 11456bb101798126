"""LLM scenario generators (seed 000, Appendix A.1-A.2), run through accord's LLM client.

* :func:`generate_descriptions` asks a model for one natural-language description per
  non-empty composite mask (A.1; prompt ``describe_composite.jinja``); the empty
  composite gets a fixed description. Descriptions identify composites in proposals, so
  a duplicate is sent back to the model with the clash named.
* :func:`generate_raw_scores` asks for an agent's raw score ``r in [0, 100]`` of every
  non-empty composite from its natural-language preference (A.2; ``score_composite.jinja``);
  the empty composite scores 0 (an agent must keep at least one atomic task, Rule 7).
* :func:`generate_scenario` runs both and assembles a validated scenario, normalising each
  agent's scores by its maximum (:func:`~accord.domains.task_exchange.generation.build_scenario`).

Every call goes through :meth:`accord.llm.LLMClient.complete` with a
:class:`~accord.llm.CallScope` (``episode`` = the generation scope, ``agent`` =
``describe:<mask>`` or ``score:<role>:<mask>``, ``turn`` = attempt), so answers are cached,
replayed and accounted like every LLM call. An answer that cannot be parsed is sent back
with the problem (``generator_retry.jinja``) up to ``retries`` times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from accord.core.safeload import LoadError, exists, load_yaml, short, unknown_keys
from accord.domains.task_exchange.generation import build_scenario, parse_description, parse_score
from accord.domains.task_exchange.llm.prompts import render_describe_prompt, render_score_request
from accord.domains.task_exchange.llm.templates import render
from accord.domains.task_exchange.load import get_scenario
from accord.domains.task_exchange.masks import format_mask
from accord.domains.task_exchange.scenario import (
    AtomicTask,
    MainTask,
    Scenario,
    ScenarioError,
    TaskUniverse,
)
from accord.llm import CallScope, GenerationConfig, LLMClient

T = TypeVar("T")

EMPTY_DESCRIPTION = "Take on no tasks at all."
"""Description of the empty composite (never asked of the model: it names no tool call)."""

DEFAULT_RETRIES = 2
"""Follow-up attempts per generator call after an unusable answer."""


class GenerationError(RuntimeError):
    """A generator call that produced no usable answer; the message names call and problem."""


async def _ask(client: LLMClient, config: GenerationConfig | None,
               messages: list[dict[str, str]], parse: Callable[[str], T], *, episode: str,
               agent: str, expected: str, retries: int, first: int = 1) -> T:
    problem = ""
    for attempt in range(first, first + retries + 1):
        done = await client.complete(messages, config,
                                     scope=CallScope(episode=episode, agent=agent, turn=attempt))
        try:
            return parse(done.text)
        except ValueError as exc:
            problem = str(exc)
        messages = [*messages, {"role": "assistant", "content": done.text},
                    {"role": "user", "content": render("generator_retry.jinja",
                                                       problem=problem, expected=expected)}]
    raise GenerationError(f"{agent}: no usable answer after {retries + 1} attempt(s): {problem}")


async def generate_descriptions(client: LLMClient, atomic: Sequence[AtomicTask],
                                main_tasks: Sequence[MainTask], *, episode: str,
                                config: GenerationConfig | None = None,
                                retries: int = DEFAULT_RETRIES) -> tuple[str, ...]:
    """One unique description per mask (index = mask), composites written by the model."""
    n = len(atomic)
    expected = "<DESCRIPTION>...</DESCRIPTION>"
    prompts = {m: render_describe_prompt(atomic, main_tasks, m) for m in range(1, 1 << n)}

    async def one(mask: int) -> str:
        return await _ask(client, config, [{"role": "user", "content": prompts[mask]}],
                          parse_description, episode=episode,
                          agent=f"describe:{format_mask(mask, n)}", expected=expected,
                          retries=retries)

    found = await asyncio.gather(*(one(m) for m in prompts))
    out = [EMPTY_DESCRIPTION, *found]
    owner: dict[str, int] = {EMPTY_DESCRIPTION: 0}
    for mask in range(1, 1 << n):
        text = out[mask]
        if text not in owner:
            owner[text] = mask
            continue
        clash = format_mask(owner[text], n)

        def unique(answer: str) -> str:
            desc = parse_description(answer)
            if desc in owner:
                raise ValueError(f"the description {desc!r} is already used for composite "
                                 f"{format_mask(owner[desc], n)}; every composite needs its own")
            return desc

        history = [{"role": "user", "content": prompts[mask]},
                   {"role": "assistant", "content": f"<DESCRIPTION>{text}</DESCRIPTION>"},
                   {"role": "user", "content": render(
                       "generator_retry.jinja", expected=expected,
                       problem=f"this description is already used for composite {clash}; "
                               "write a different one for exactly these tool calls.")}]
        text = await _ask(client, config, history, unique, episode=episode,
                          agent=f"describe:{format_mask(mask, n)}", expected=expected,
                          retries=max(retries, 1) - 1, first=retries + 2)
        out[mask] = text
        owner[text] = mask
    return tuple(out)


async def generate_raw_scores(client: LLMClient, role: str, preference: str,
                              descriptions: Sequence[str], *, episode: str,
                              config: GenerationConfig | None = None,
                              retries: int = DEFAULT_RETRIES) -> dict[int, Fraction]:
    """``mask -> raw score`` of one agent for every composite (0 for the empty one)."""
    n = (len(descriptions) - 1).bit_length()

    async def one(mask: int) -> Fraction:
        prompt = render_score_request(role, preference, descriptions[mask])
        return await _ask(client, config, [{"role": "user", "content": prompt}], parse_score,
                          episode=episode, agent=f"score:{role}:{format_mask(mask, n)}",
                          expected="<SCORE>n</SCORE> with n from 0 to 100", retries=retries)

    masks = range(1, len(descriptions))
    scores = await asyncio.gather(*(one(m) for m in masks))
    return {0: Fraction(0), **dict(zip(masks, scores, strict=True))}


async def generate_scenario(client: LLMClient, *, name: str, atomic: Sequence[AtomicTask],
                            main_tasks: Sequence[MainTask], agents: Sequence[Mapping[str, Any]],
                            universe_name: str | None = None, title: str = "",
                            turn_limit: int = 10, descriptions: Sequence[str] | None = None,
                            config: GenerationConfig | None = None, scope: str | None = None,
                            retries: int = DEFAULT_RETRIES) -> Scenario:
    """A new scenario: composite descriptions (unless given) and both agents' utilities.

    ``agents``: two mappings with ``role``, ``main_task`` (an id of ``main_tasks``) and
    ``preference``. ``scope`` is the cache scope (default ``task-exchange-generate/<name>``):
    the same scope and prompts replay the same answers.
    """
    ids = {t.id for t in main_tasks}
    if len(agents) != 2:
        raise ScenarioError(f"agents: exactly two agents required, got {len(agents)}")
    for i, a in enumerate(agents):
        for key in ("role", "main_task", "preference"):
            if not isinstance(a.get(key), str) or not a.get(key):
                raise ScenarioError(f"agents[{i}].{key}: a non-empty string is required")
        if a["main_task"] not in ids:
            raise ScenarioError(f"agents[{i}].main_task: unknown main task {a['main_task']!r}; "
                                f"known: {', '.join(sorted(ids))}")
    episode = scope or f"task-exchange-generate/{name}"
    if descriptions is None:
        descriptions = await generate_descriptions(client, atomic, main_tasks, episode=episode,
                                                   config=config, retries=retries)
    universe = TaskUniverse(universe_name or f"{name}-tasks", tuple(atomic), tuple(main_tasks),
                            tuple(descriptions))
    raws = await asyncio.gather(*(
        generate_raw_scores(client, str(a["role"]), str(a["preference"]), universe.descriptions,
                            episode=episode, config=config, retries=retries) for a in agents))
    pieces = [{"role": a["role"], "main_task": a["main_task"], "preference": a["preference"],
               "raw_scores": raw} for a, raw in zip(agents, raws, strict=True)]
    return build_scenario(name, universe, pieces, title=title, turn_limit=turn_limit)


def load_preferences(source: str | Path) -> dict[str, Any]:
    """Agents for :func:`generate_scenario` from a YAML file or a built-in scenario name.

    File form: ``{name?, title?, turn_limit?, agents: [{role, main_task, preference}, ...]}``.
    A built-in scenario name (``cooperative``) reuses its roles, main tasks and preferences.
    """
    path = Path(source)
    if not path.suffix and not exists(path):
        sc = get_scenario(str(source))
        return {"name": sc.name, "title": sc.title, "turn_limit": sc.turn_limit,
                "agents": [{"role": a.role, "main_task": a.main_task,
                            "preference": a.preference} for a in sc.agents]}
    try:
        data = load_yaml(path).data
    except LoadError as exc:
        raise ScenarioError(str(exc)) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("agents"), list):
        raise ScenarioError(f"{path}: agents: expected a list of {{role, main_task, "
                            "preference}} mappings")
    bad = unknown_keys(data, ("name", "title", "description", "turn_limit", "agents",
                              "tasks"))
    if bad is not None:
        raise ScenarioError(f"{path}: {bad[0][:200]}: {bad[1]}")
    for i, a in enumerate(data["agents"]):
        if not isinstance(a, Mapping):
            raise ScenarioError(f"{path}: agents[{i}]: expected a mapping")
        bad = unknown_keys(a, ("role", "main_task", "preference", "raw_scores"))
        if bad is not None:
            raise ScenarioError(f"{path}: agents[{i}].{bad[0][:200]}: {bad[1]}")
        for key in ("role", "main_task", "preference"):
            if not isinstance(a.get(key), str) or not a[key].strip():
                raise ScenarioError(f"{path}: agents[{i}].{key}: a non-empty string is required")
    limit = data.get("turn_limit", 10)
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ScenarioError(f"{path}: turn_limit: expected an integer, got {short(limit)}")
    return {"name": str(data.get("name", path.stem)), "title": str(data.get("title", "")),
            "turn_limit": limit, "agents": [dict(a) for a in data["agents"]]}


__all__ = [
    "DEFAULT_RETRIES",
    "EMPTY_DESCRIPTION",
    "GenerationError",
    "generate_descriptions",
    "generate_raw_scores",
    "generate_scenario",
    "load_preferences",
]
