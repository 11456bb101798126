"""Built-in bargaining scenarios, shipped as YAML files next to this module."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from accord.core.names import unknown_name
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.core.safeload import exists
from accord.core.scenario import Scenario
from accord.domains.bargaining.listing import builtin_names, list_scenarios
from accord.domains.bargaining.load import (
    ScenarioError,
    parse_scenario,
    parse_text,
    read_scenario_text,
)
from accord.domains.bargaining.twin import builtin_data, data_dir


def _builtin_names() -> tuple[str, ...]:
    return builtin_names()  # one listing of the data folder (cached there)


def builtin_scenarios() -> list[str]:
    """Names of the built-in scenarios."""
    return list_scenarios()


@lru_cache(maxsize=64)
def _from_file(path: str, text: str, max_outcomes: int) -> Scenario:
    # keyed by the content: an edited file is parsed again
    return parse_text(text, path, max_outcomes)


@lru_cache(maxsize=64)
def _builtin(name: str) -> Scenario:
    text = (data_dir() / f"{name}.yaml").read_text(encoding="utf-8")
    return parse_scenario(builtin_data(name, text), f"bargaining/{name}")


def resolve_scenario(target: str, max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> Scenario:
    """A scenario from ``bargaining/<name>``, ``<name>``, a path to a YAML file or
    ``FORMAT:PATH`` (a file of another tool read by :mod:`accord.formats`).

    ``max_outcomes`` caps the outcome space of a scenario file (default 10^6).
    """
    name = target.removeprefix("bargaining/")
    if ":" in name:
        imported = _imported(name, max_outcomes)
        if imported is not None:
            return imported
    if name in _builtin_names():
        return _builtin(name)
    path = Path(target)
    if path.suffix in (".yaml", ".yml") or exists(path):
        # one Scenario object per file content, so per-scenario caches (sorted utilities,
        # frontier, Nash point) survive from one episode to the next
        return _from_file(str(path), read_scenario_text(path), max_outcomes)
    raise ScenarioError("", "", unknown_name(
        "bargaining scenario", name, builtin_scenarios(), hint="(or give a YAML file)"))


def _imported(target: str, max_outcomes: int) -> Scenario | None:
    """The scenario of ``FORMAT:PATH`` (None when FORMAT is not a known format)."""
    from accord.formats import FormatError, import_path, scenario_yaml, split_target

    try:
        split = split_target(target)
        if split is None:
            return None
        imported = import_path(*split)
    except FormatError as exc:
        raise ScenarioError(exc.source, exc.element, exc.problem) from None
    return _from_file(target, scenario_yaml(imported), max_outcomes)
