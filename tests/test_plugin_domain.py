"""A third-party domain package, installed with pip, runs like a built-in one.

The fixture ``tests/fixtures/ultimatum`` is a separate distribution (``accord-ultimatum``)
with one registration: its ``accord.domains`` entry point. Installed with pip (offline, no
build isolation), it must be found by ``accord run``, ``accord bench``, ``accord results``
and ``accord scenarios`` with no edit to accord, and pass the shipped conformance check;
its LLM provider (``accord.providers``) must answer model strings.

pip installs it into a directory of its own (``--target``), put on this process's
``sys.path`` and the ``PYTHONPATH`` of the ``accord`` commands run here, not into the test
venv: entry points are found on the import path either way (``importlib.metadata``), and
the suite's other test files, running at the same time in other pytest-xdist workers on
the same venv, never see a domain they do not expect.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.testing import ConformanceError, check_protocol

FIXTURE = Path(__file__).parent / "fixtures" / "ultimatum"
ACCORD = [sys.executable, "-m", "accord"]


#: where the module fixture installed the package (on the path of the commands run here)
_SITE: list[Path] = []


@pytest.fixture(scope="module")
def ultimatum(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``pip install --target`` the fixture package into a directory of its own, on the
    import path for the module's tests, then off it (a copy is built, so no build files
    land in the checkout; nothing lands in the venv)."""
    base = tmp_path_factory.mktemp("plugin")
    src, site = base / "ultimatum", base / "site"
    shutil.copytree(FIXTURE, src)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    done = subprocess.run([*pip, "install", "--no-build-isolation", "--no-deps", "--no-index",
                           "--target", str(site), str(src)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    from accord.domains import domain_entry_points

    sys.path.insert(0, str(site))
    _SITE.append(site)
    importlib.invalidate_caches()
    domain_entry_points.cache_clear()
    try:
        yield
    finally:
        _SITE.remove(site)
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.split(".")[0] == "accord_ultimatum"]:
            del sys.modules[name]
        importlib.invalidate_caches()
        domain_entry_points.cache_clear()


def _accord(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, _SITE), *filter(None, [
        env.get("PYTHONPATH")])])
    return subprocess.run([*ACCORD, *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=env)


def test_accord_run_finds_the_installed_domain(ultimatum: None) -> None:
    out = _accord("run", "ultimatum/small-pie", "--agents", "fair,threshold", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["status"] == "agreement"
    assert rec["record"]["payoffs"] == {"proposer": 5, "responder": 5}
    assert rec["metrics"] == {"agreement": True, "responder_share": 0.5}
    # the domain's own parameters reach it through --param; its params model checks them
    low = _accord("run", "ultimatum/big-pie", "-a", "greedy,threshold?min=30", "-p",
                  "min_share=5", "--json")
    assert low.returncode == 0, low.stderr
    rec = json.loads(low.stdout)
    assert (rec["status"], rec["reason"], rec["record"]["offered"]) == ("no_deal", "rejected", 5)
    bad = _accord("run", "ultimatum/small-pie", "-a", "fair,fair", "-p", "min_shar=2")
    assert bad.returncode == 2
    assert "ultimatum parameter 'min_shar'" in bad.stderr
    wrong = _accord("run", "ultimatum/small-pie", "-a", "fair,fair", "--strategy", "baseline")
    assert wrong.returncode == 2 and "--strategy does not apply to domain 'ultimatum'" in \
        wrong.stderr
    text = _accord("run", "ultimatum/small-pie", "-a", "fair,fair")
    assert text.returncode == 0 and "ultimatum/small-pie: fair, fair" in text.stdout


def test_accord_bench_runs_and_tabulates_the_installed_domain(ultimatum: None,
                                                              tmp_path: Path) -> None:
    cfg = tmp_path / "ult.yaml"
    cfg.write_text("name: ult\ndomain: ultimatum\nscenarios: all\n"
                   "agents:\n  - [fair, threshold]\n  - [greedy, threshold]\nseeds: 2\n")
    store = tmp_path / "ult.db"
    ran = _accord("bench", str(cfg), "--store", str(store), "--json")
    assert ran.returncode == 0, ran.stderr
    summary = json.loads(ran.stdout)
    assert (summary["planned"], summary["done"], summary["failed"]) == (8, 8, 0)
    res = _accord("results", str(store), "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    text = json.dumps(rows)
    assert "ultimatum" in text and "responder_share" in text
    listed = json.loads(_accord("scenarios", "--json").stdout)
    assert listed["domains"]["ultimatum"] == {"scenarios": ["small-pie", "big-pie"]}
    # accord serve shows the episode with the domain's own figure, found with no edit
    from starlette.testclient import TestClient

    from accord.serve.app import create_app

    with TestClient(create_app([store]), base_url="http://127.0.0.1") as client:
        run = client.get("/api/stores").json()["stores"][0]["runs"][0]["name"]
        episodes = client.get(f"/api/stores/0/runs/{run}/episodes").json()
        eid = episodes["episodes"][0]["id"]
        page = client.get(f"/episodes/{eid}")
    assert page.status_code == 200
    assert '<svg class="ultimatum-split"' in page.text and "<title>proposer " in page.text


def test_the_plugin_passes_the_shipped_conformance_check(ultimatum: None) -> None:
    from accord.domains import get_domain

    report = check_protocol(get_domain("ultimatum"), episodes=12, seed=3)
    assert report.episodes == 12 and report.invalid_moves > 0
    assert set(report.statuses) <= {"agreement", "no_deal", "error"}


def test_the_check_catches_a_protocol_that_accepts_an_illegal_move(ultimatum: None) -> None:
    from accord_ultimatum import UltimatumProtocol  # type: ignore[import-not-found]
    from accord_ultimatum.domain import illegal_move, legal_move  # type: ignore[import-not-found]

    from accord.protocols import ProtocolKit

    class Lax(UltimatumProtocol):  # type: ignore[misc]
        def validate(self, state, role, move):  # type: ignore[no-untyped-def]
            verdict = super().validate(state, role, move)
            return None if verdict is not None and verdict.reason == "share_out_of_range" \
                else verdict

    kit = ProtocolKit(name="lax", make=lambda i: Lax(10), legal=legal_move,
                      illegal=illegal_move, max_rounds=2)
    with pytest.raises(ConformanceError, match="was accepted"):
        check_protocol(kit, episodes=10)


def test_a_provider_from_another_package_answers_model_strings(ultimatum: None) -> None:
    """``accord.providers``: the fixture's ``fixture-mock/<policy>`` drives an LLM agent."""
    out = _accord("run", "bargaining/buyer-seller", "-a",
                  "llm:fixture-mock/negotiator,boulware", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["status"] in ("agreement", "no_deal") and rec["rounds"] >= 1
    unknown = _accord("run", "bargaining/buyer-seller", "-a", "llm:nowhere/x,boulware")
    assert unknown.returncode == 2 and "nowhere" in unknown.stderr


def test_an_agent_kind_from_another_package_joins_a_builtin_domain(ultimatum: None) -> None:
    """``accord.agents``: the fixture's ``bargaining.always-walk`` entry point."""
    out = _accord("run", "bargaining/buyer-seller", "-a", "always-walk,boulware", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert (rec["status"], rec["reason"], rec["who"]) == ("no_deal", "walk", "buyer")
    kinds = _accord("run", "bargaining/buyer-seller", "-a", "always-wal,boulware")
    assert kinds.returncode == 2 and "always-walk" in kinds.stderr  # listed among the known


def test_agent_kinds_from_another_package_join_dond_and_games(ultimatum: None) -> None:
    """``accord.agents`` entry points ``games.last-action`` and
    ``deal-or-no-deal.always-walk``: found by name, listed among the known kinds."""
    out = _accord("run", "games/prisoners-dilemma", "-a", "last-action,fixed:cooperate",
                  "--max-rounds", "1", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)["record"]
    assert rec["actions"] == {"Alice": "defect", "Bob": "cooperate"}
    assert rec["messages"][0]["text"] == "Alice plays last"
    kinds = _accord("run", "games/stag-hunt", "-a", "last-acton,rational")
    assert kinds.returncode == 2 and "did you mean 'last-action'" in kinds.stderr
    data = _dond_data()
    if data is None:
        pytest.skip("Deal-or-No-Deal data not found (set ACCORD_DATA); the games part ran")
    walk = _accord("run", "deal-or-no-deal/test/5", "-a", "always-walk,greedy", "--data",
                   str(data), "--json")
    assert walk.returncode == 0, walk.stderr
    rec = json.loads(walk.stdout)
    assert (rec["status"], rec["reason"], rec["who"]) == ("no_deal", "walk", "alice")


def _dond_data() -> Path | None:
    """The Deal-or-No-Deal folder as the DoND tests find it (``ACCORD_DATA`` or the shared
    data beside the clone), or ``None``."""
    env = os.environ.get("ACCORD_DATA")
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    folder = base if (base / "test.txt").is_file() else base / "dealornodeal"
    return folder if (folder / "test.txt").is_file() else None
