"""Cheap listings: every built-in domain names its scenarios without importing its agents,
protocols, LLM layer or numpy, and the cheap list is the one its ``Domain`` gives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from accord.domains import domain_names, get_domain, list_domain_scenarios

REPO = Path(__file__).resolve().parents[2]
SHARED_DOND = REPO.parent / "shared" / "data" / "dealornodeal"

#: what a listing must not load: each one is a large part of the start-up cost
HEAVY = ("numpy", "pydantic", "jinja2", "scipy", "accord.agents.spec", "accord.llm",
         "accord.protocols.engine", "accord.solvers",
         *(f"accord.domains.{d}.domain" for d in ("bargaining", "deal_or_no_deal",
                                                  "deliberation", "games", "task_exchange")))


@pytest.mark.parametrize("name", ["bargaining", "deal-or-no-deal", "deliberation", "games",
                                  "task-exchange"])
def test_the_cheap_list_is_the_domains_own(name: str, monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setenv("ACCORD_DATA", str(tmp_path / "none"))
    names, hint = list_domain_scenarios(name)
    assert names == get_domain(name).scenarios()
    if name == "deal-or-no-deal":
        assert names == [] and hint == get_domain(name).scenarios_hint
    else:
        assert names


def test_the_dond_list_with_data_is_the_domains_own(monkeypatch: pytest.MonkeyPatch) -> None:
    if not (SHARED_DOND / "test.txt").is_file():
        pytest.skip(f"no Deal-or-No-Deal data at {SHARED_DOND}")
    monkeypatch.setenv("ACCORD_DATA", str(SHARED_DOND))
    names, _ = list_domain_scenarios("deal-or-no-deal")
    assert names and names == get_domain("deal-or-no-deal").scenarios()


PROBE = """
import json, sys
from typer.testing import CliRunner
from accord.cli.main import app
res = CliRunner().invoke(app, {args!r})
print(json.dumps({{"code": res.exit_code, "out": res.stdout,
                   "loaded": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def _probe(args: list[str], tmp_path: Path) -> dict[str, object]:
    """Run ``accord ARGS`` in a fresh interpreter; report what it imported."""
    env = {"PATH": "/usr/bin:/bin", "ACCORD_DATA": str(tmp_path / "none"),
           "PYTHONPATH": str(REPO / "src"), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def test_accord_scenarios_imports_no_domain(tmp_path: Path) -> None:
    got = _probe(["scenarios", "--json"], tmp_path)
    assert got["code"] == 0 and got["loaded"] == []
    listed = json.loads(str(got["out"]))["domains"]
    assert set(listed) >= set(domain_names())
    assert "buyer-seller" in listed["bargaining"]["scenarios"]
    assert listed["deal-or-no-deal"]["hint"].startswith("data not found")


def test_accord_deliberation_list_imports_no_solver(tmp_path: Path) -> None:
    got = _probe(["deliberation", "list", "--json"], tmp_path)
    assert got["code"] == 0 and got["loaded"] == []
    assert json.loads(str(got["out"]))["settings"] == {
        "menu-numeric": 60, "menu-semantic": 60, "task-allocation": 60}


def test_a_broken_plugin_is_skipped_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    """One plug-in that fails to import does not take ``accord scenarios`` down."""
    from importlib.metadata import EntryPoint

    from typer.testing import CliRunner

    import accord.domains as domains
    from accord.cli.main import app

    real = domains.domain_entry_points()
    broken = EntryPoint("broken", "accord_no_such_module_xyz:DOMAIN", "accord.domains")
    monkeypatch.setattr(domains, "domain_entry_points", lambda: {**real, "broken": broken})
    with pytest.raises(ImportError, match=r"domain 'broken'.*failed to load"):
        list_domain_scenarios("broken")
    res = CliRunner().invoke(app, ["scenarios", "--json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.stdout)["domains"]
    assert "broken" not in listed and "buyer-seller" in listed["bargaining"]["scenarios"]
    assert "domain 'broken'" in " ".join(res.stderr.split())


def test_deliberation_list_prints_every_reward_with_two_decimals() -> None:
    """It read ``max reward 159.7`` beside ``203.79`` (``:g``): one format, lined up."""
    from typer.testing import CliRunner

    from accord.cli.main import app

    res = CliRunner().invoke(app, ["deliberation", "list", "menu-numeric"])
    assert res.exit_code == 0, res.output
    rewards = re.findall(r"max reward +(\S+)", res.stdout)
    assert len(rewards) == 60 and all(re.fullmatch(r"\d+\.\d\d", r) for r in rewards), rewards
    assert len({line.index("max reward") for line in res.stdout.splitlines()}) == 1
