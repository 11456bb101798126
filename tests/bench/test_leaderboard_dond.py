"""Deal-or-No-Deal episodes are rated: the leaderboard's scorers were keyed by
``deal_or_no_deal`` and ``dond`` while a stored episode's domain is ``deal-or-no-deal``, so
every one was skipped ("domain 'deal-or-no-deal' has no per-party score defined")."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from accord.bench.leaderboard import episode_match
from accord.bench.single import store_episode
from accord.bench.store import Store
from accord.domains.base import EpisodeSpec, RunContext, get_domain

REPO = Path(__file__).resolve().parents[2]


def _dond_dir() -> Path:
    env = os.environ.get("ACCORD_DATA")
    base = Path(env) if env else REPO.parent / "shared" / "data"
    folder = base if (base / "test.txt").is_file() else base / "dealornodeal"
    if not (folder / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found at {folder} (set ACCORD_DATA)")
    return folder


def test_a_stored_dond_episode_is_a_rated_match(tmp_path: Path) -> None:
    data = _dond_dir()
    dom = get_domain("deal-or-no-deal")
    store = tmp_path / "dond.db"
    spec = EpisodeSpec("deal-or-no-deal", "test/L7", ("workflow", "greedy"),
                       {"data": str(data)})
    result = asyncio.run(dom.run_episode(spec, RunContext()))
    met = dom.metrics(spec, result)
    store_episode(store, spec, result, met)
    with Store.open_readonly(store) as st:
        (row,) = list(st.episodes())
    assert row.spec["domain"] == "deal-or-no-deal"
    match, why = episode_match(row)
    assert why is None and match is not None
    assert [(s.label, s.score) for s in match.seats] == [
        ("workflow", float(met["alice"])), ("greedy", float(met["bob"]))]
    assert match.agreed is bool(met["agreement"])
