"""The lazy plan: same episodes, order and seq as building every spec up front, while
holding only ids and small integers per episode."""

from __future__ import annotations

import tracemalloc

import pytest

from accord.bench import expand, parse_config, select
from accord.bench.executors import parse_executor
from accord.bench.expand import EpisodeView, PlanEpisodes, PlannedEpisode
from accord.bench.runner import TaskView
from accord.domains import EpisodeSpec
from accord.domains.ids import episode_id

CFG = {
    "name": "mix", "plugins": ["accord.testing.sleep_domain"], "seeds": 3,
    "sweeps": [
        {"domain": "bargaining", "scenarios": ["split", "buyer-seller"],
         "agents": [["linear", "conceder"], ["boulware", "linear"]],
         "params": {"max_rounds": [10, 20]}},
        {"domain": "testing-sleep", "scenarios": ["nap"], "agents": [["sleeper", "sleeper"]],
         "params": {"delay": 0.0}, "seeds": {"start": 7, "count": 5}, "repeat": 2},
        # overlaps the first sweep: its episodes are duplicates, dropped
        {"domain": "bargaining", "scenarios": ["split"], "agents": [["linear", "conceder"]],
         "params": {"max_rounds": 10}, "seeds": 4},
    ],
}


def _reference(cfg):
    """The plan as accord built it before (every PlannedEpisode materialised)."""
    episodes, seen, cell = [], set(), 0
    for sweep in cfg.sweeps:
        for scenario in sweep.scenarios:
            for lu in sweep.lineups:
                for params in sweep.params:
                    labels = {"lineup": lu.label(), "agents": lu.agent_labels()}
                    for si, seed in enumerate(sweep.seeds):
                        spec = EpisodeSpec(sweep.domain, scenario, lu.agents, params, seed)
                        for rep in range(sweep.repeat):
                            eid = episode_id(spec, rep)
                            if eid in seen:
                                continue
                            seen.add(eid)
                            episodes.append(PlannedEpisode(eid, spec, rep, labels,
                                                           len(episodes), (si, rep, cell)))
                    cell += 1
    episodes.sort(key=lambda e: e.order)
    return episodes


def test_lazy_plan_matches_the_materialised_one():
    cfg = parse_config(CFG)
    plan = expand(cfg)
    ref = _reference(cfg)
    assert isinstance(plan.episodes, PlanEpisodes)
    assert plan.duplicates == 3  # seeds 0-2 of the last sweep; its seed 3 is new
    assert len(plan.episodes) == len(ref) == 2 * 2 * 2 * 3 + 5 * 2 + 1
    assert list(plan.episodes) == ref and plan.episodes == ref
    assert plan.episodes[-1] == ref[-1] and plan.episodes[3] == ref[3]
    assert plan.episodes[5:9] == ref[5:9] and isinstance(plan.episodes[5:9], EpisodeView)
    with pytest.raises(IndexError):
        plan.episodes[len(ref)]
    # resume: the queue is a view of the plan, in plan order
    statuses = {ref[0].id: ("done", "agreement"), ref[4].id: ("failed", None)}
    queue, done, failed = select(plan, statuses, False, False)
    assert (done, failed) == (1, 1) and queue == [e for e in ref if e.id not in statuses]
    assert queue[1:3] == ref[2:4] and queue.ids == [e.id for e in queue]
    tasks = TaskView(queue, cfg, {}, None)
    assert len(tasks) == len(queue) and [t.id for t in tasks] == [e.id for e in queue]
    assert [t.spec for t in tasks[2:4]] == [e.spec for e in queue[2:4]]


def test_lazy_plan_holds_no_spec_per_episode():
    cfg = parse_config({"name": "n", "plugins": ["accord.testing.sleep_domain"],
                        "domain": "testing-sleep", "scenarios": ["nap"],
                        "agents": [["sleeper", "sleeper"]], "params": {"delay": 0.0},
                        "seeds": 4000})
    tracemalloc.start()
    plan = expand(cfg)
    held, _ = tracemalloc.get_traced_memory()
    specs = list(plan.episodes)
    full, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(specs) == 4000
    assert held / 4000 < 300  # an id and four integers (measured ~190 B)
    assert full - held > 2 * held  # what materialising every episode would have cost


def test_ray_executor_cpus_option():
    assert parse_executor("ray?cpus=0.25").cpus == 0.25
    choice = parse_executor("ray:auto?cpus=0.5")
    assert (choice.address, choice.cpus, str(choice)) == ("auto", 0.5, "ray:auto?cpus=0.5")
    assert str(parse_executor("ray://head:10001?cpus=2")) == "ray://head:10001?cpus=2"
    for bad in ("ray?cpus=0", "ray?cpus=-1", "ray?cpu=1", "ray?cpus=x", "ray?cpus=inf"):
        with pytest.raises(ValueError, match=r"\?cpus=F with F > 0"):
            parse_executor(bad)
    with pytest.raises(ValueError, match="unknown executor"):
        parse_executor("local?cpus=1")
    from accord.bench.executors import make_executor

    ex = make_executor("ray?cpus=0.25", 8)
    assert ex.num_cpus == 0.25 and ex.concurrency == 8  # type: ignore[attr-defined]
