"""One "value left on the table" (issue 27 item 2): ``accord results -m value_left``, the
reviewer's deal audit on the episode page and the person's debrief give the same numbers on
the same stored episode, as do their distances to the Pareto frontier and the Nash point."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.agents.spec import AgentSpec
from accord.bench.optimality import episode_gaps
from accord.bench.single import RUN_NAME, store_episode
from accord.bench.store import Store
from accord.cli.main import app
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.debrief import debrief
from accord.serve import audit


def _played(tmp_path: Path, domain: str, scenario: str, agents: tuple[str, ...],
            data: str | None = None) -> tuple[EpisodeSpec, Any, Any, Path]:
    spec = EpisodeSpec(domain, scenario, tuple(AgentSpec(a) for a in agents), {}, 0)
    dom = get_domain(domain)
    result = asyncio.run(dom.run_episode(spec, RunContext(data=data)))
    db = tmp_path / "one.db"
    eid = store_episode(db, spec, result, dom.metrics(spec, result))
    with Store.open_readonly(db) as st:
        row = st.find(eid)
    return spec, result, row, db


def _results_mean(db: Path, metric: str) -> float:
    res = CliRunner().invoke(app, ["results", str(db), "--run", RUN_NAME, "-m", metric,
                                   "--json"])
    assert res.exit_code == 0, res.output
    (group,) = json.loads(res.output)["groups"]
    return float(group["metrics"][metric]["mean"])


def test_bargaining_three_surfaces_one_number(tmp_path: Path) -> None:
    # boulware against conceder on buyer-seller ends off the frontier: something is left
    spec, result, row, db = _played(tmp_path, "bargaining", "buyer-seller",
                                    ("boulware", "conceder"))
    assert result.status == "agreement"
    gaps = episode_gaps(row)
    assert gaps is not None and gaps.value_left is not None and gaps.value_left > 0.01
    seen = audit.optimality(row)
    assert seen is not None
    for role in result.record["parties"]:  # either side's debrief: the same plane, mirrored
        told = debrief(spec, result, role)
        assert told is not None
        assert told["value_left"] == pytest.approx(gaps.value_left, abs=1e-12)
        assert told["l2_to_pareto"] == pytest.approx(gaps.values["gap_pareto"], abs=1e-12)
        assert told["l2_to_nash"] == pytest.approx(gaps.values["gap_nash"], abs=1e-12)
    assert seen["left_on_table"] == pytest.approx(gaps.value_left, abs=1e-12)
    assert seen["pareto"] == pytest.approx(gaps.values["gap_pareto"], abs=1e-12)
    assert seen["nash"] == pytest.approx(gaps.values["gap_nash"], abs=1e-12)
    for metric in ("value_left", "gap_pareto", "gap_nash"):
        assert _results_mean(db, metric) == pytest.approx(gaps.values[metric], abs=1e-9)
    # and the domain's own stored distances, computed when the episode ended
    assert gaps.values["gap_pareto"] == pytest.approx(row.metrics["l2_to_pareto"], abs=1e-9)


@pytest.mark.parametrize(("domain", "scenario", "agents"), [
    ("games", "prisoners-dilemma", ("rational", "rational")),
    ("task-exchange", "competitive", ("utility-aware", "selfish")),
    ("deliberation", "menu-numeric", ("share", "share")),
])
def test_other_domains_three_surfaces_one_number(tmp_path: Path, domain: str,
                                                 scenario: str, agents: tuple[str, ...]
                                                 ) -> None:
    spec, result, row, db = _played(tmp_path, domain, scenario, agents)
    gaps = episode_gaps(row)
    assert gaps is not None and gaps.value_left is not None
    seen = audit.optimality(row)
    assert seen is not None and seen["left_on_table"] == pytest.approx(gaps.value_left)
    roles = list(result.record.get("players") or result.record.get("utilities")
                 or ["agent_1"])
    told = debrief(spec, result, roles[0])
    assert told is not None and told["value_left"] == pytest.approx(gaps.value_left)
    assert _results_mean(db, "value_left") == pytest.approx(gaps.value_left)
    if domain == "games":  # mutual defection: (3, 3) was there for both
        assert gaps.value_left == 4.0


def test_deal_or_no_deal_three_surfaces_one_number(tmp_path: Path) -> None:
    folder = Path(__file__).resolve().parents[3] / "shared" / "data" / "dealornodeal"
    if not (folder / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found at {folder}")
    left = []
    for line in range(4):  # greedy against itself: deals on the frontier and no-deals
        spec, result, row, db = _played(tmp_path / str(line), "deal-or-no-deal",
                                        f"test/{line}", ("greedy", "greedy"), str(folder))
        gaps = episode_gaps(row)
        assert gaps is not None and gaps.value_left is not None
        left.append(gaps.value_left)
        assert _results_mean(db, "value_left") == pytest.approx(gaps.value_left)
        seen = audit.optimality(row)
        assert seen is not None and seen["left_on_table"] == pytest.approx(gaps.value_left)
        for role in ("alice", "bob"):
            told = debrief(spec, result, role)
            assert told is not None and told["value_left"] == pytest.approx(gaps.value_left)
    assert 0.0 in left and max(left) > 0  # both kinds of outcome were compared
