"""The lazy package faces (``accord.agents`` and each domain package): every exported name
resolves, none is shadowed by a submodule of the same name (importing that submodule would
replace the export), each face is exactly the short list below (a helper does not slip back
in unnoticed), the typed imports mypy and the API docs read name the same list, and
importing a package loads no numpy, pydantic or jinja2."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

#: the public face of each package, pinned: change it here on purpose or not at all
FACES: dict[str, set[str]] = {
    "accord.domains.bargaining": {
        "DOMAIN", "BargainingDomain", "ScenarioError", "analyze", "bargaining_metrics",
        "build_agents", "builtin_scenarios", "list_scenarios", "load_scenario",
        "parse_scenario", "resolve_scenario", "run_negotiation",
    },
    "accord.domains.deal_or_no_deal": {
        "DOMAIN", "BayesianWorkflowAgent", "DataFormatError", "DataNotFoundError", "Datapoint",
        "DealOrNoDealDomain", "DondObservation", "DondProtocol", "DondState", "GreedyAgent",
        "HumanReplayAgent", "Outcome", "dataset_stats", "download", "episode_metrics",
        "estimation_metrics", "human_metrics", "list_scenarios", "load_datapoints",
        "load_selection", "load_split", "outcome_metrics", "play_datapoint", "scenarios_hint",
    },
    "accord.domains.games": {
        "DOMAIN", "ExtensiveGame", "FixedAgent", "Game", "GameFileError", "GameObservation",
        "GameProtocol", "GameState", "GamesDomain", "NormalFormGame", "RandomAgent",
        "RationalAgent", "Solution", "action_distribution", "catalog_names", "episode_metrics",
        "list_scenarios", "load_catalog_game", "load_game", "make_aec_env", "parse_game",
        "resolve_game", "save_game", "solve_game",
    },
    "accord.domains.task_exchange": {
        "DOMAIN", "AtomicTask", "MainTask", "Scenario", "ScenarioError", "ScriptedAgent",
        "TaskExchangeDomain", "TaskExchangeObservation", "TaskExchangeProtocol",
        "TaskExchangeState", "TaskUniverse", "UtilityAwareAgent", "builtin_scenarios",
        "episode_metrics", "generate_scenario", "get_scenario", "list_scenarios",
        "load_scenario", "paper_tables", "table1_row", "table2_row",
    },
    "accord.domains.deliberation": {
        "DOMAIN", "DataError", "DeliberationDomain", "DeliberationObservation",
        "DeliberationProtocol", "DeliberationState", "Instance", "InstanceError",
        "MenuInstance", "NaiveAgent", "Optimum", "SETTINGS", "SharingAgent", "TaskInstance",
        "episode_metrics", "instance_paths", "list_scenarios", "load_instance", "optimum",
        "parse_instance", "reward", "shipped_instance",
    },
    "accord.agents": {
        "Agent", "AgentSpec", "AgentSpecError", "MidpointMediator", "NegotiatorAgent",
        "build_judge", "build_mediator", "build_negotiator", "parse_agent_list",
        "parse_agent_spec", "register_judge", "register_mediator", "register_negotiator",
    },
}
PACKAGES = sorted(FACES)
HEAVY = ("numpy", "pydantic", "jinja2")

#: imports the package and reports its lazy names and which heavy modules got loaded
PROBE = """
import json, sys
import {name} as pkg
print(json.dumps({{
    "lazy": sorted(set(dir(pkg)) - set(vars(pkg))),
    "heavy": sorted(m for m in {heavy!r} if m in sys.modules),
}}))
"""


def _probe(name: str) -> dict[str, list[str]]:
    """Import ``name`` in a fresh interpreter (this one has loaded everything already)."""
    proc = subprocess.run([sys.executable, "-c", PROBE.format(name=name, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, list[str]] = json.loads(proc.stdout)
    return out


def _typed_imports(name: str) -> set[str]:
    """The names the ``if TYPE_CHECKING:`` block of the package's ``__init__`` imports."""
    init = Path(importlib.import_module(name).__file__ or "")
    tree = ast.parse(init.read_text(encoding="utf-8"))
    blocks = [n for n in tree.body if isinstance(n, ast.If)
              and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1, "expected one `if TYPE_CHECKING:` block"
    return {alias.asname or alias.name for node in blocks[0].body
            if isinstance(node, ast.ImportFrom) for alias in node.names}


@pytest.mark.parametrize("name", PACKAGES)
def test_every_export_resolves_and_no_submodule_shadows_it(name: str) -> None:
    package = importlib.import_module(name)
    submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert not submodules & set(package.__all__), "an export has a submodule's name"
    for export in package.__all__:
        assert getattr(package, export) is not None
    if name.startswith("accord.domains."):
        assert "DOMAIN" in package.__all__


@pytest.mark.parametrize("name", PACKAGES)
def test_face_is_pinned(name: str) -> None:
    package = importlib.import_module(name)
    assert len(package.__all__) == len(set(package.__all__)), "a name is listed twice"
    assert set(package.__all__) == FACES[name]
    assert _typed_imports(name) == FACES[name], "TYPE_CHECKING imports differ from __all__"


def test_a_helper_is_not_on_the_face() -> None:
    """Names left off the face are an AttributeError there, and import from their module."""
    dond = importlib.import_module("accord.domains.deal_or_no_deal")
    with pytest.raises(AttributeError, match="has no attribute 'is_envy_free'"):
        _ = dond.is_envy_free
    from accord.domains.deal_or_no_deal.rules import is_envy_free

    assert callable(is_envy_free)


@pytest.mark.slow
@pytest.mark.parametrize("name", PACKAGES)
def test_import_is_lazy_and_light(name: str) -> None:
    probe = _probe(name)
    assert probe["heavy"] == [], f"import {name} loaded {probe['heavy']}"
    assert set(probe["lazy"]) == FACES[name], "the runtime face differs from __all__"


def test_every_domains_llm_kinds_are_found_in_a_fresh_interpreter() -> None:
    """A domain's LLM agent kinds live in its ``llm`` package; nothing else may need to
    import it first (deliberation's were unknown to ``accord run`` in a new process)."""
    code = ("import json, accord.domains as d\n"
            "print(json.dumps({n: d.get_domain(n).agent_kinds() for n in "
            "['bargaining', 'deal-or-no-deal', 'games', 'task-exchange', 'deliberation']}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    kinds = json.loads(out.stdout.strip().splitlines()[-1])
    assert all("llm" in names for names in kinds.values()), kinds
    assert {"llm-centralized", "llm-oracle"} <= set(kinds["deliberation"])


def test_accord_run_deliberation_with_llm_agents_in_a_fresh_process(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "accord", "run", "deliberation/menu-numeric", "--agents",
         "llm:mock/deliberation,llm:mock/deliberation", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] in ("agreement", "no_deal")
