"""LLM scenario generators (A.1-A.2) over real HTTP against the stub, cached and replayed."""

from __future__ import annotations

import json
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from accord.agents.llm_support import runtime_for
from accord.domains.task_exchange import (
    ScenarioError,
    generate_scenario,
    get_scenario,
    load_scenario,
)
from accord.domains.task_exchange.cli import app
from accord.domains.task_exchange.generation import scenario_to_yaml, universe_to_yaml
from accord.domains.task_exchange.generators import (
    GenerationError,
    generate_raw_scores,
    load_preferences,
)
from accord.domains.task_exchange.load import DATA_DIR, load_task_list
from accord.domains.task_exchange.stub import TaskExchangeGeneratorPolicy
from accord.llm import CacheMiss, LLMRuntime
from accord.testing.stub import Policy, PolicyRequest, Reply, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/{}"
AGENTS = [{"role": "Alice", "main_task": "engineer_trip",
           "preference": "You are very good at making documents for applying for jobs."},
          {"role": "Bob", "main_task": "developer_job",
           "preference": "You are a very good time keeper, and also good at taking notes."}]


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-gen")
    return point


def small_tasks(tmp_path: Path) -> Path:
    """A 4-atomic-task universe (two main tasks of two) to keep call counts small."""
    data = yaml.safe_load((DATA_DIR / "tasks.yaml").read_text())
    atomic = [dict(a, bit=i) for i, a in enumerate(data["atomic_tasks"][:2]
                                                   + data["atomic_tasks"][3:5])]
    mains = [{"id": "developer_job", "mask": "0011", "request": data["main_tasks"][0]["request"]},
             {"id": "engineer_trip", "mask": "1100", "request": data["main_tasks"][1]["request"]}]
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump({"name": "small", "atomic_tasks": atomic,
                                    "main_tasks": mains}))
    return path


async def test_generate_scenario_end_to_end_loads_back(stub_env: Any, tmp_path: Path) -> None:
    _, atomic, mains = load_task_list(small_tasks(tmp_path))
    async with StubServer("task-exchange-generator") as stub:
        stub_env(stub)
        rt = LLMRuntime()
        client = rt.client(MODEL.format("task-exchange-generator"))
        sc = await generate_scenario(client, name="gen", atomic=atomic, main_tasks=mains,
                                     agents=AGENTS, title="generated")
        reqs = stub.completion_requests
        await rt.aclose()
    assert len(reqs) == 15 + 2 * 15  # descriptions of 15 composites, 2 x 15 scores
    assert len(set(sc.universe.descriptions)) == 16
    assert "apply for job" in sc.universe.description(0b0001)
    # A.2: each agent's table is normalised by its own maximum
    for a in sc.agents:
        assert max(a.utilities) == 1 and a.utilities[0] == 0
        top = max(a.raw_scores)
        assert all(u == r / top for u, r in zip(a.utilities, a.raw_scores, strict=True))
    # preferences drive the scores: Alice likes applying, Bob notes and time keeping
    alice, bob = sc.profile("Alice"), sc.profile("Bob")
    assert alice.raw_scores[0b0001] > alice.raw_scores[0b0100]
    assert bob.raw_scores[0b1000] > bob.raw_scores[0b0001]
    # what the generator writes is a loadable scenario
    (tmp_path / "gen.tasks.yaml").write_text(universe_to_yaml(sc.universe))
    (tmp_path / "gen.yaml").write_text(scenario_to_yaml(sc, "gen.tasks.yaml"))
    again = load_scenario(tmp_path / "gen.yaml")
    assert again.agents == sc.agents and again.universe.descriptions == sc.universe.descriptions
    scopes = {r.headers.get("X-Accord-Session") or r.headers.get("x-accord-session")
              for r in reqs}
    assert "task-exchange-generate/gen/score:Bob:1000" in scopes


class Duplicating(Policy):
    """Answers every first description request with the same text; retries get it right."""

    def __init__(self) -> None:
        self.inner = TaskExchangeGeneratorPolicy()
        self.retries: list[str] = []
        self.lock = threading.Lock()

    def respond(self, request: PolicyRequest) -> Reply:
        users = [m["content"] for m in request.messages if m["role"] == "user"]
        if "<DESCRIPTION>" in users[0] and len(users) == 1:
            return Reply("<DESCRIPTION>Do the job search chores.</DESCRIPTION>")
        if len(users) > 1:
            with self.lock:
                self.retries.append(users[-1])
        out = self.inner.respond(request)
        assert isinstance(out, Reply)
        return out


async def test_duplicate_descriptions_are_sent_back(stub_env: Any, tmp_path: Path) -> None:
    _, atomic, mains = load_task_list(small_tasks(tmp_path))
    policy = Duplicating()
    async with StubServer(policies={"dup": policy}) as stub:
        stub_env(stub)
        client = LLMRuntime().client(MODEL.format("dup"))
        sc = await generate_scenario(client, name="dup", atomic=atomic, main_tasks=mains,
                                     agents=AGENTS)
    assert len(set(sc.universe.descriptions)) == 16
    assert sc.universe.description(0b0001) == "Do the job search chores."  # the first keeps it
    assert len(policy.retries) == 14
    assert all("already used for composite 0001" in r for r in policy.retries)


async def test_unusable_scores_are_retried_then_fail_clearly(stub_env: Any) -> None:
    sc = get_scenario("cooperative")
    descs = sc.universe.descriptions[:4]  # masks 0..3 (a 2-bit slice is enough here)
    flaky = ScriptedPolicy(["I'd say high", "<SCORE>70</SCORE>"], cycle=True)
    async with StubServer(policies={"flaky": flaky}) as stub:
        stub_env(stub)
        client = LLMRuntime(max_concurrency=1).client(MODEL.format("flaky"))
        raw = await generate_raw_scores(client, "Alice", "likes jobs", descs, episode="e")
        retry = [r for r in stub.completion_requests if len(r.messages) == 3]
    assert raw == {0: 0, 1: Fraction(70), 2: Fraction(70), 3: Fraction(70)}
    assert retry and "could not be used" in retry[0].messages[-1]["content"]
    assert "<SCORE>n</SCORE>" in retry[0].messages[-1]["content"]
    bad = ScriptedPolicy(["no idea"], cycle=True)
    async with StubServer(policies={"bad": bad}) as stub:
        stub_env(stub)
        client = LLMRuntime().client(MODEL.format("bad"))
        with pytest.raises(GenerationError, match=r"score:Alice:1: no usable answer after 3"):
            await generate_raw_scores(client, "Alice", "x", descs[:2], episode="e")


async def test_generation_is_cached_and_replays(stub_env: Any, tmp_path: Path) -> None:
    _, atomic, mains = load_task_list(small_tasks(tmp_path))
    cache = str(tmp_path / "gen-cache.sqlite")
    async with StubServer("task-exchange-generator") as stub:
        stub_env(stub)
        rw = runtime_for({"cache": cache, "cache_mode": "rw"})
        first = await generate_scenario(rw.client(MODEL.format("task-exchange-generator")),
                                        name="c", atomic=atomic, main_tasks=mains,
                                        agents=AGENTS)
        n = len(stub.completion_requests)
        replay = runtime_for({"cache": cache, "cache_mode": "replay"})
        again = await generate_scenario(
            replay.client(MODEL.format("task-exchange-generator")), name="c", atomic=atomic,
            main_tasks=mains, agents=AGENTS)
        assert len(stub.completion_requests) == n
        with pytest.raises(CacheMiss):  # another scope is another sample: not cached
            await generate_scenario(replay.client(MODEL.format("task-exchange-generator")),
                                    name="other", atomic=atomic, main_tasks=mains,
                                    agents=AGENTS)
    assert again.agents == first.agents
    assert again.universe.descriptions == first.universe.descriptions


async def test_generator_input_errors() -> None:
    _, atomic, mains = load_task_list(DATA_DIR / "tasks.yaml")
    client = LLMRuntime().client("mock/task-exchange-generator")
    with pytest.raises(ScenarioError, match=r"agents\[1\]\.main_task: unknown main task 'x'"):
        await generate_scenario(client, name="e", atomic=atomic, main_tasks=mains,
                                agents=[AGENTS[0], dict(AGENTS[1], main_task="x")])
    with pytest.raises(ScenarioError, match=r"agents\[0\]\.preference: a non-empty string"):
        await generate_scenario(client, name="e", atomic=atomic, main_tasks=mains,
                                agents=[dict(AGENTS[0], preference=""), AGENTS[1]])


def test_load_preferences(tmp_path: Path) -> None:
    coop = load_preferences("cooperative")
    assert [a["role"] for a in coop["agents"]] == ["Alice", "Bob"]
    assert coop["agents"][0]["preference"].startswith("You are very good at making documents")
    path = tmp_path / "prefs.yaml"
    path.write_text(yaml.safe_dump({"name": "p", "agents": AGENTS, "turn_limit": 8}))
    assert load_preferences(path)["turn_limit"] == 8
    path.write_text(yaml.safe_dump({"agents": [{"role": "A", "main_task": "developer_job"}]}))
    with pytest.raises(ScenarioError, match=r"prefs.yaml: agents\[0\]\.preference"):
        load_preferences(path)


def test_cli_generate_writes_a_loadable_scenario_and_replays(stub_env: Any,
                                                             tmp_path: Path) -> None:
    tasks = small_tasks(tmp_path)
    prefs = tmp_path / "prefs.yaml"
    prefs.write_text(yaml.safe_dump({"title": "two hands", "agents": [
        dict(AGENTS[0], main_task="engineer_trip"), dict(AGENTS[1], main_task="developer_job")]}))
    out = tmp_path / "out" / "mine.yaml"
    cache = tmp_path / "cli-cache.sqlite"
    args = ["generate", "--model", MODEL.format("task-exchange-generator"), "--out", str(out),
            "--tasks", str(tasks), "--preferences", str(prefs), "--cache", str(cache),
            "--temperature", "0.7", "--json"]
    runner = CliRunner()
    with StubServer("task-exchange-generator") as stub:
        stub_env(stub)
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        summary = json.loads(res.output)
        n = len(stub.completion_requests)
        assert n == 45 and summary["usage"]["calls"] == 45
        sc = load_scenario(out)
        assert sc.name == "mine" and sc.title == "two hands"
        assert (out.parent / "mine.tasks.yaml").is_file()
        assert summary["composites"] == 16 and summary["roles"] == ["Alice", "Bob"]
        # replay-only: the same command makes no request and writes the same scenario
        first = out.read_text()
        res = runner.invoke(app, [*args, "--cache-mode", "replay"])
        assert res.exit_code == 0, res.output
        assert len(stub.completion_requests) == n and out.read_text() == first
        # keeping the descriptions only scores: 2 x 15 calls
        res = runner.invoke(app, ["generate", "--model", MODEL.format("task-exchange-generator"),
                                  "--out", str(tmp_path / "kept.yaml"),
                                  "--keep-descriptions", "--json"])
        assert res.exit_code == 0, res.output
        assert len(stub.completion_requests) == n + 2 * 63
    kept = load_scenario(tmp_path / "kept.yaml")
    assert kept.universe.descriptions == get_scenario("cooperative").universe.descriptions
    assert kept.profile("Bob").preference == get_scenario("cooperative").profile("Bob").preference
