"""What ``accord run`` of two code agents imports (issue 30: start-up of a single run).

A bargaining episode between code strategies needs numpy, typer (the command line) and the
parts of accord that run it (not asyncio: such an episode never waits, and runs without an
event loop); the parameter checker (pydantic), the
other commands (bench, serve, fork, ...), the LLM layer, the web app, the entry-point scan
and the conformance kit are not its cost, and neither is PyYAML for a built-in scenario
(read from its JSON twin, :mod:`accord.domains.bargaining.twin`) without ``--param``. Each
check runs the real command in a fresh interpreter and reads ``sys.modules`` at its end (no
timing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from accord.domains import BUILTIN_DOMAINS, ENTRY_POINT_GROUP

REPO = Path(__file__).resolve().parents[2]

#: imported by ``accord run bargaining/... --agents <code>,<code> --json`` before issue 30,
#: and not needed by it
NOT_NEEDED = ("pydantic", "importlib.metadata", "accord.bench", "accord.llm", "accord.serve",
              "accord.play", "accord.cli.bench", "accord.cli.serve", "accord.cli.fork",
              "accord.cli.leaderboard", "accord.cli.series", "accord.cli.importer",
              "accord.cli.export", "accord.protocols.kit", "accord.domains.bargaining.params",
              "accord.domains.params", "jinja2", "rich", "starlette", "scipy", "zstandard",
              "openai", "anthropic", "socket" if sys.platform == "win32" else "http.client",
              # and since the JSON twin of the built-in scenarios (issue 30, round 3): the
              # YAML parser, and importlib.resources with its zipfile and tempfile imports
              "yaml", "accord.core.safeyaml", "importlib.resources", "zipfile", "tempfile",
              # and since code agents run without an event loop (issue 30, the engine's
              # follow-ups): asyncio, forks, the voting rules, the mediators and the
              # observations of the mediator and the stagnation scorer
              "asyncio", "accord.protocols.fork", "accord.protocols.voting",
              "accord.agents.mediator", "accord.agents.pareto_mediator", "accord.protocols.roles")

PROBE = """
import json, sys, runpy
sys.argv = ["accord", *{args!r}]
try:
    runpy.run_module("accord", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stdout.flush()
loaded = sorted(m for m in sys.modules
                if any(m == n or m.startswith(n + ".") for n in {names!r}))
print(json.dumps({{"code": code, "loaded": loaded}}), file=sys.stderr)
"""


def _run(args: list[str], tmp_path: Path,
         names: tuple[str, ...] = NOT_NEEDED) -> tuple[dict[str, Any], str]:
    """Run ``accord ARGS`` in a fresh interpreter: (exit code and which of ``names`` (or
    their submodules) it imported, its stdout)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=args, names=names)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report, proc.stdout


#: what that run printed before issue 30's start-up work (the episode is deterministic): the
#: start-up changes (lazy imports, tables of help, cheaper definitions) must not change a
#: byte of it
RUN_JSON = (
    '{"status": "agreement", "reason": null, "agreement": {"price": 900, '
    '"delivery_days": 10, "warranty_years": 2}, "utilities": {"buyer": 0.6925, "seller": '
    '0.425}, "batna": {"buyer": 0.4, "seller": 0.35}, "rounds": 18, "flags": '
    '{"accepted_below_batna": {"buyer": false, "seller": false}, "sycophancy": false}, '
    '"who": null, "detail": null, "stagnation": {"rounds": 0, "rule": "auto", "why": '
    '"the default when every party is a code strategy or a person (they follow their own '
    'schedules; the round cap ends the episode)"}}'
)


def test_a_code_agent_run_imports_only_what_the_domain_needs(tmp_path: Path) -> None:
    report, out = _run(["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                        "--json"], tmp_path)
    assert report["code"] in (0, None)
    assert report["loaded"] == []
    record = json.loads(out)
    assert record["status"] == "agreement" and set(record["utilities"]) == {"buyer", "seller"}
    assert out == RUN_JSON + "\n"


def test_a_scenario_file_and_param_values_are_still_read_as_yaml(tmp_path: Path) -> None:
    """The twin is for built-ins only: a scenario file is parsed by the safe YAML loader,
    and ``--param`` values are read as YAML scalars, as before."""
    src = REPO / "src" / "accord" / "domains" / "bargaining" / "data" / "split.yaml"
    path = tmp_path / "mine.yaml"
    path.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    report, out = _run(["run", str(path), "--agents", "boulware,conceder", "--json"],
                       tmp_path)
    assert report["code"] in (0, None) and "accord.core.safeyaml" in report["loaded"]
    assert json.loads(out)["status"] in ("agreement", "no_agreement", "walk")
    report, out = _run(["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                        "--param", "max_rounds=7", "--json"], tmp_path)
    assert report["code"] in (0, None) and "yaml" in report["loaded"]
    assert json.loads(out)["rounds"] <= 7


def test_a_run_with_parameters_still_checks_them(tmp_path: Path) -> None:
    """Parameters are read through the pydantic model as before: a bad one is refused."""
    report, out = _run(["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                        "--max-rounds", "0", "--json"], tmp_path)
    assert report["code"] == 2
    assert "accord.domains.bargaining.params" in report["loaded"]  # checked by the model
    assert "'max_rounds'" in json.loads(out)["error"]["message"]


def test_builtin_domains_match_the_package_metadata() -> None:
    """The built-in table that spares ``accord run`` the entry-point scan is the one
    accord's package metadata declares."""
    ours = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)
            if ep.value.startswith("accord.domains.")}
    if not ours:
        pytest.skip("accord is not installed with its entry points in this environment")
    assert ours == BUILTIN_DOMAINS


def test_default_settings_are_the_models_defaults() -> None:
    """An episode without parameters runs on the same values the pydantic model gives."""
    from accord.domains.bargaining.params import BargainingParams
    from accord.domains.bargaining.runner import check_params
    from accord.domains.bargaining.settings import DEFAULT_SETTINGS, PARAM_NAMES
    from accord.domains.params import read_params

    assert check_params({}) is DEFAULT_SETTINGS
    assert read_params(BargainingParams, {}, "bargaining").settings() == DEFAULT_SETTINGS
    assert tuple(BargainingParams.model_fields) == PARAM_NAMES
    assert check_params({"max_rounds": 7}).max_rounds == 7


def test_the_commands_signatures_need_no_evaluation() -> None:
    """typer reads each command's signature with ``get_type_hints`` at every start; with
    real annotations (no ``from __future__ import annotations`` in accord.cli.main) it
    compiles and evaluates no annotation strings (half the cost of building ``run``)."""
    import importlib
    import inspect

    cli_main = importlib.import_module("accord.cli.main")  # the module, not the function
    for name in ("run", "analyze", "demo", "_root"):
        hints = inspect.get_annotations(getattr(cli_main, name))
        assert hints and not any(isinstance(h, str) for h in hints.values()), name


#: what ``accord --help`` imported before issue 30's round 4 to list the lazy commands and
#: the domains' command groups, and no longer needs (their help is in a table)
HELP_NOT_NEEDED = ("accord.cli.bench", "accord.cli.serve", "accord.cli.fork",
                   "accord.cli.leaderboard", "accord.cli.series", "accord.cli.importer",
                   "accord.cli.export", "accord.domains.deliberation.cli",
                   "accord.domains.deal_or_no_deal.cli", "accord.domains.games.cli",
                   "accord.domains.task_exchange.cli", "accord.bench", "accord.protocols",
                   "numpy", "rich", "pydantic", "asyncio")


def test_help_lists_the_commands_without_importing_them(tmp_path: Path) -> None:
    report, out = _run(["--help"], tmp_path, HELP_NOT_NEEDED)
    assert report["code"] in (0, None)
    assert report["loaded"] == []
    # the listing still names every command and group, with its help
    assert "series" in out and "Repeated play: the same parties meet N times" in out
    assert "games" in out and "Classic games: list the catalog" in out
