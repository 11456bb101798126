"""Pure parts of the LLM scenario generators (seed 000, Appendix A.1-A.2).

The generators themselves (which call a model, cached like every LLM call) live in
:mod:`accord.domains.task_exchange.generators`; they use these functions:
:func:`parse_description` and :func:`parse_score` read the model's answers to the
prompts rendered by :func:`accord.domains.task_exchange.llm.prompts.render_describe_request` and
:func:`~accord.domains.task_exchange.llm.prompts.render_score_request`;
:func:`build_scenario` assembles a validated scenario from the generated pieces
(normalising raw scores as in A.2); :func:`scenario_to_yaml` writes it in the data-file
format that :func:`~accord.domains.task_exchange.load.load_scenario` reads, and
:func:`universe_to_yaml` the tasks file it refers to.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

import yaml

from accord.agents.jsonsafe import loads_bounded
from accord.agents.tags import Grammar, parse_tags
from accord.domains.task_exchange.scenario import (
    AgentProfile,
    Scenario,
    ScenarioError,
    TaskUniverse,
    normalise_scores,
)

_GRAMMAR = Grammar.of(data=["SCORE", "DESCRIPTION"])  # read in linear time (issue 24)


def _tag(text: str, name: str) -> str | None:
    """The stripped body of the first closed top-level ``<name>`` of a model answer."""
    found = [t for t in parse_tags(text, _GRAMMAR).tags if t.name == name and t.closed]
    return found[0].text if found else None
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_score(text: str) -> Fraction:
    """The raw 0-100 score in an answer: ``<SCORE>n</SCORE>``, ``{"score": n}`` or one number.

    Raises ``ValueError`` naming the problem when no single score in [0, 100] is found.
    """
    tagged = _tag(text, "SCORE")
    body = tagged if tagged is not None else text.strip()
    if tagged is None and body.startswith("{"):
        try:
            data = loads_bounded(body)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("score"), int | float):
            body = str(data["score"])
    nums = _NUMBER.findall(body)
    if len(nums) != 1:
        found = "no number" if not nums else f"{len(nums)} numbers"
        raise ValueError(f"score answer must hold exactly one number, found {found}: "
                         f"{text[:200]!r}")
    value = Fraction(nums[0])
    if not 0 <= value <= 100:
        raise ValueError(f"score {nums[0][:20]} is outside [0, 100]: {text[:200]!r}")
    return value


def parse_description(text: str) -> str:
    """The description in a model answer (inside ``<DESCRIPTION>`` tags, else the whole text)."""
    tagged = _tag(text, "DESCRIPTION")
    body = (tagged if tagged is not None else text).strip().strip('"').strip()
    if not body:
        raise ValueError(f"empty description in answer {text[:200]!r}")
    return " ".join(body.split())


def build_scenario(name: str, universe: TaskUniverse, agents: Sequence[Mapping[str, object]],
                   title: str = "", turn_limit: int = 10) -> Scenario:
    """A validated scenario from generated pieces.

    Each agent mapping has ``role``, ``main_task`` (a main-task id of ``universe``),
    ``preference`` and ``raw_scores`` (``mask -> score`` for all 2^n masks).
    """
    size = 1 << universe.n
    profiles = []
    for i, item in enumerate(agents):
        for key in ("role", "main_task", "raw_scores"):
            if key not in item:
                raise ScenarioError(f"agents[{i}]: missing {key!r}")
        raw = item["raw_scores"]
        if not isinstance(raw, Mapping):
            raise ScenarioError(f"agents[{i}].raw_scores: expected a mapping mask -> score")
        missing = [m for m in range(size) if m not in raw]
        if missing:
            raise ScenarioError(f"agents[{i}].raw_scores: no score for masks "
                                f"{', '.join(universe.fmt(m) for m in missing[:8])}")
        scores = []
        for m in range(size):
            val = raw[m]
            if isinstance(val, bool) or not isinstance(val, int | float | Fraction):
                raise ScenarioError(f"agents[{i}].raw_scores[{universe.fmt(m)}]: not a number")
            frac = Fraction(str(val)) if isinstance(val, float) else Fraction(val)
            if not 0 <= frac <= 100:
                raise ScenarioError(
                    f"agents[{i}].raw_scores[{universe.fmt(m)}]: {val} outside [0, 100]")
            scores.append(frac)
        universe.main_task(str(item["main_task"]))
        profiles.append(AgentProfile(str(item["role"]), str(item["main_task"]),
                                     str(item.get("preference", "")), tuple(scores),
                                     normalise_scores(scores)))
    return Scenario(name, title, universe, tuple(profiles), turn_limit)


def _num(x: Fraction) -> int | float:
    return int(x) if x.denominator == 1 else float(x)


def universe_to_yaml(universe: TaskUniverse) -> str:
    """The universe in the tasks-file format that
    :func:`~accord.domains.task_exchange.load.load_universe` reads."""
    data = {
        "name": universe.name,
        "atomic_tasks": [{"bit": a.bit, "tool": a.tool, "call": a.call, "label": a.label}
                         for a in universe.atomic],
        "main_tasks": [{"id": t.id, "mask": universe.fmt(t.mask), "request": t.request}
                       for t in universe.main_tasks],
        "composites": {universe.fmt(m): d for m, d in enumerate(universe.descriptions)},
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def scenario_to_yaml(scenario: Scenario, tasks_ref: str = "../tasks.yaml") -> str:
    """The scenario in the data-file format (raw scores, not normalised utilities)."""
    uni = scenario.universe
    data = {
        "name": scenario.name,
        "title": scenario.title,
        "tasks": tasks_ref,
        "turn_limit": scenario.turn_limit,
        "agents": [{"role": a.role, "main_task": a.main_task, "preference": a.preference,
                    "raw_scores": {uni.fmt(m): _num(r) for m, r in enumerate(a.raw_scores)}}
                   for a in scenario.agents],
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


__all__ = ["build_scenario", "parse_description", "parse_score", "scenario_to_yaml",
           "universe_to_yaml"]
