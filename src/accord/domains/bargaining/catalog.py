"""Built-in bargaining scenarios, shipped as YAML files next to this module."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from accord.core.names import unknown_name
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.core.safeload import clip, exists, parse_yaml
from accord.core.scenario import Scenario
from accord.domains.bargaining.loader import ScenarioError, load_scenario, parse_scenario

_DATA = "accord.domains.bargaining"


def builtin_scenarios() -> list[str]:
    """Names of the built-in scenarios."""
    root = resources.files(_DATA).joinpath("data")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml"))


@lru_cache(maxsize=64)
def _builtin(name: str) -> Scenario:
    ref = resources.files(_DATA).joinpath("data", f"{name}.yaml")
    source = f"bargaining/{name}"
    return parse_scenario(parse_yaml(ref.read_text(encoding="utf-8"), source).data, source)


def resolve_scenario(target: str, max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> Scenario:
    """A scenario from ``bargaining/<name>``, ``<name>`` or a path to a YAML file.

    ``max_outcomes`` caps the outcome space of a scenario file (default 10^6).
    """
    name = target.removeprefix("bargaining/")
    if name in builtin_scenarios():
        return _builtin(name)
    path = Path(target)
    if path.suffix in (".yaml", ".yml") or exists(path):
        return load_scenario(path, max_outcomes)
    raise ScenarioError(clip(target), "<scenario>", unknown_name(
        "bargaining scenario", name, builtin_scenarios(), hint="(or give a YAML file)"))
