"""The SQLite completion cache: record, replay with zero HTTP requests, misses, concurrency."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from accord.llm import (
    CacheError,
    CacheMiss,
    CacheMode,
    CallScope,
    Completion,
    CompletionCache,
    GenerationConfig,
    LLMRuntime,
    Usage,
    cache_key,
    resolve_model,
)
from accord.testing.stub import ScriptedPolicy, StubServer

MODEL = "openai-api/stub/cached"


def _conversation(turns: int) -> list[list[dict[str, str]]]:
    prompts = []
    messages = [{"role": "system", "content": "You negotiate."}]
    for t in range(turns):
        messages = [*messages, {"role": "user", "content": f"Round {t}: your move."}]
        prompts.append(messages)
        messages = [*messages, {"role": "assistant", "content": f"reply {t}"}]
    return prompts


async def _run(rt: LLMRuntime, episode: str) -> list[Completion]:
    client = rt.client(MODEL)
    cfg = GenerationConfig(temperature=0.7)
    return [await client.complete(p, cfg, scope=CallScope(episode, "buyer", t))
            for t, p in enumerate(_conversation(4))]


async def test_record_then_replay_makes_no_http_requests(
        tmp_path: Path, stub_env: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cache.sqlite"
    with StubServer(ScriptedPolicy([f"answer {i}" for i in range(100)])) as stub:
        stub_env(stub)
        with CompletionCache(path, "rw") as cache:
            async with LLMRuntime(cache=cache) as rt:
                recorded = await _run(rt, "ep-1") + await _run(rt, "ep-2")
                again = await _run(rt, "ep-1")  # rw: hits, no new requests
        assert len(stub.completion_requests) == 8
        assert [c.text for c in again] == [c.text for c in recorded[:4]]
        assert all(c.from_cache and c.attempts == 0 for c in again)
        stub.reset()
        monkeypatch.delenv("STUB_API_KEY")  # replay needs no key
        with CompletionCache(path, "replay") as cache:
            async with LLMRuntime(cache=cache) as rt:
                replayed = await _run(rt, "ep-1") + await _run(rt, "ep-2")
                totals = rt.tracker.totals()
        assert stub.requests == []
    assert [c.text for c in replayed] == [c.text for c in recorded]
    assert [c.usage for c in replayed] == [c.usage for c in recorded]
    assert [c.latency for c in replayed] == [c.latency for c in recorded]
    assert totals.calls == totals.cache_hits == 8 and totals.spent in (0.0, None)


async def test_replay_miss_is_a_clear_error(tmp_path: Path, stub_env: Callable[..., None]
                                            ) -> None:
    path = tmp_path / "cache.sqlite"
    with StubServer(ScriptedPolicy(["x"], cycle=True)) as stub:
        stub_env(stub)
        with CompletionCache(path, "rw") as cache:
            async with LLMRuntime(cache=cache) as rt:
                await _run(rt, "ep-1")
        with CompletionCache(path, "replay") as cache:
            async with LLMRuntime(cache=cache) as rt:
                with pytest.raises(CacheMiss, match="replay-only cache") as info:
                    await rt.client(MODEL).complete(_conversation(1)[0],
                                                    scope=CallScope("ep-9", "buyer", 0))
                # a different generation config is a different request too
                with pytest.raises(CacheMiss):
                    await rt.client(MODEL).complete(_conversation(1)[0], GenerationConfig(),
                                                    scope=CallScope("ep-1", "buyer", 0))
        assert len(stub.completion_requests) == 4
    assert "ep-9" in str(info.value) and str(path) in str(info.value)


def test_replay_of_a_missing_file_fails(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="does not exist"):
        CompletionCache(tmp_path / "nope.sqlite", "replay")


def test_modes_parse_with_aliases() -> None:
    assert CacheMode.parse("read-write") is CacheMode.RW
    assert CacheMode.parse("replay-only") is CacheMode.REPLAY
    assert CacheMode.parse("OFF") is CacheMode.OFF
    with pytest.raises(ValueError, match="off, rw or replay"):
        CacheMode.parse("sometimes")


def test_off_mode_creates_no_file(tmp_path: Path) -> None:
    cache = CompletionCache(tmp_path / "c.sqlite", "off")
    assert not cache.enabled and not (tmp_path / "c.sqlite").exists()


def test_key_covers_every_part_of_the_request() -> None:
    env = {"A_BASE_URL": "http://h:1/v1", "A_API_KEY": "k" * 10, "B_BASE_URL": "http://h:2/v1",
           "B_API_KEY": "k" * 10}
    ep, other_url = resolve_model("openai-api/a/m", env), resolve_model("openai-api/b/m", env)
    msgs = [{"role": "user", "content": "hi"}]
    base = cache_key(ep, msgs, GenerationConfig(), CallScope("e", "a", 1))  # type: ignore[arg-type]
    variants = [
        cache_key(other_url, msgs, GenerationConfig(), CallScope("e", "a", 1)),  # type: ignore[arg-type]
        cache_key(resolve_model("openai-api/a/n", env), msgs, GenerationConfig(),  # type: ignore[arg-type]
                  CallScope("e", "a", 1)),
        cache_key(ep, [{"role": "user", "content": "hi!"}], GenerationConfig(),
                  CallScope("e", "a", 1)),
        cache_key(ep, msgs, GenerationConfig(temperature=0.5), CallScope("e", "a", 1)),  # type: ignore[arg-type]
        cache_key(ep, msgs, GenerationConfig(), CallScope("e", "a", 2)),  # type: ignore[arg-type]
        cache_key(ep, msgs, GenerationConfig(), CallScope("f", "a", 1)),  # type: ignore[arg-type]
        cache_key(ep, msgs, GenerationConfig(), CallScope("e", "b", 1)),  # type: ignore[arg-type]
    ]
    assert len({base, *variants}) == 1 + len(variants)
    # the key does not depend on the API key
    env2 = dict(env, A_API_KEY="z" * 10)
    assert cache_key(resolve_model("openai-api/a/m", env2), msgs, GenerationConfig(),  # type: ignore[arg-type]
                     CallScope("e", "a", 1)) == base


async def test_identical_concurrent_requests_are_fetched_once(
        tmp_path: Path, stub_env: Callable[..., None]) -> None:
    with StubServer(ScriptedPolicy(["only once"], cycle=True)) as stub:
        stub_env(stub)
        with CompletionCache(tmp_path / "c.sqlite", "rw") as cache:
            async with LLMRuntime(cache=cache) as rt:
                client = rt.client(MODEL)
                msgs = [{"role": "user", "content": "same"}]
                results = await asyncio.gather(*(client.complete(msgs) for _ in range(10)))
    assert len(stub.completion_requests) == 1
    assert {r.text for r in results} == {"only once"}
    assert sum(not r.from_cache for r in results) == 1


WRITER = """
import sys
from accord.llm import CallScope, Completion, CompletionCache, GenerationConfig, Usage
from accord.llm import cache_key, resolve_model
path, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
endpoint = resolve_model("openai-api/w/m", env)
with CompletionCache(path, "rw", busy_timeout=30) as cache:
    for i in range(n):
        msgs = [{"role": "user", "content": f"w{worker} #{i}"}]
        key = cache_key(endpoint, msgs, GenerationConfig(), None)
        done = Completion(f"text {worker}/{i}", Usage(3, 2), 0.01, "openai-api/w/m",
                          "openai-api/w")
        cache.put_sync(key, done, endpoint, CallScope(f"w{worker}", "a", i))
        assert cache.get_sync(key).text == done.text
"""


def test_several_processes_share_one_cache_file(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, path, str(w), "40"])
             for w in range(3)]
    assert [p.wait(60) for p in procs] == [0, 0, 0]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 120
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_stats_and_clear(tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    with CompletionCache(tmp_path / "c.sqlite") as cache:
        for i in range(3):
            cache.put_sync(f"k{i}", Completion("t", Usage(10, 5, 4), 0.5, "openai-api/w/m",
                                               "openai-api/w"), endpoint, CallScope(f"e{i % 2}"))
        stats = cache.stats()
        assert stats["entries"] == 3
        row = stats["models"]["openai-api/w/m"]
        tokens = (row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"])
        assert tokens == (30, 15, 12)
        assert row["episodes"] == 2 and row["latency_s"] == 1.5
        assert cache.clear() == 3 and cache.stats()["entries"] == 0
