"""The SQLite completion cache: record, replay with zero HTTP requests, misses, concurrency."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
from accord.llm.cache import key_bytes, key_payload
from accord.llm.types import ChatMessage
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


def test_keys_of_recorded_caches_are_unchanged() -> None:
    """Keys computed before the key's encoding was memoised (pinned): old caches still hit."""
    env = {"A_BASE_URL": "http://h:1/v1", "A_API_KEY": "k" * 10}
    ep = resolve_model("openai-api/a/m", env)
    msgs = [{"role": "system", "content": "Tu négocies \"fort\" \\ ✓"},
            {"role": "user", "content": "Round 1:\n{\"price\": 140}"}]
    cfg = GenerationConfig(temperature=0.7, stop=("</X>",), extra={"b": [1, {"z": 0, "a": None}]})
    assert cache_key(ep, msgs, cfg, CallScope("ep-1", "buyer", 3)) == (  # type: ignore[arg-type]
        "f0f66cb8e2586b7409cc632ea06fddc4ee4af19df5188514d0d38a20e2d847cc")
    assert cache_key(ep, [{"role": "user", "content": "hi"}], GenerationConfig(),
                     None) == "8386dcca7d4ada71ada0a511262b3ef0e98be8300f9892bf8cb03152bbc5cbeb"


_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)


@settings(max_examples=150, deadline=None)
@given(contents=st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), _TEXT),
                         min_size=1, max_size=6),
       episode=st.none() | _TEXT, agent=st.none() | _TEXT, turn=st.none() | st.integers(),
       temperature=st.none() | st.floats(0, 2), extra=st.dictionaries(_TEXT, _TEXT | st.integers()))
def test_key_bytes_equal_the_whole_payload_encoded_at_once(
        contents: list[tuple[str, str]], episode: str | None, agent: str | None,
        turn: int | None, temperature: float | None, extra: dict[str, object]) -> None:
    env = {"A_BASE_URL": "http://h:1/v1", "A_API_KEY": "k" * 10}
    ep = resolve_model("openai-api/a/m", env)
    msgs: list[ChatMessage] = [{"role": r, "content": c}  # type: ignore[typeddict-item]
                               for r, c in contents]
    cfg = GenerationConfig(temperature=temperature, extra=extra)
    scope = CallScope(episode, agent, turn)
    whole = json.dumps(key_payload(ep, msgs, cfg, scope), sort_keys=True, ensure_ascii=False,
                       separators=(",", ":")).encode()
    assert key_bytes(ep, msgs, cfg, scope) == whole
    # twice: the second time from the memo
    assert key_bytes(ep, msgs, cfg, scope) == whole


def _entry(i: int) -> tuple[str, Completion]:
    return f"key-{i}", Completion(f"text {i}", Usage(3, 2, 1), 0.01, "openai-api/w/m",
                                  "openai-api/w")


async def test_concurrent_answers_are_committed_together_before_their_calls_return(
        tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    path = tmp_path / "c.sqlite"
    with CompletionCache(path, "rw") as cache:
        async def record(i: int) -> int:
            key, done = _entry(i)
            await cache.put(key, done, endpoint, CallScope("e", "a", i))
            # committed: another connection (another process, say) sees it now
            with sqlite3.connect(path) as other:
                row = other.execute("SELECT text FROM completions WHERE key = ?",
                                    (key,)).fetchone()
            assert row == (f"text {i}",)
            return i

        assert await asyncio.gather(*(record(i) for i in range(200))) == list(range(200))
        writer = cache._writer
        assert writer.rows == 200
        assert writer.batches < 200  # grouped: fewer transactions than answers
        hits = await asyncio.gather(*(cache.get(f"key-{i}") for i in range(200)))
        assert [h.text if h else None for h in hits] == [f"text {i}" for i in range(200)]
        assert await cache.get("absent") is None


async def test_a_lookup_that_would_wait_goes_to_a_worker_thread(tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    with CompletionCache(tmp_path / "c.sqlite", "rw") as cache:
        key, done = _entry(1)
        await cache.put(key, done, endpoint, None)
        # the loop-thread reader is in use elsewhere: the lookup does not wait for it
        assert cache._read_lock.acquire()
        try:
            hit = await cache.get(key)
        finally:
            cache._read_lock.release()
        assert hit is not None and hit.text == "text 1" and hit.from_cache

        class Busy:
            def execute(self, *args: object) -> None:
                raise sqlite3.OperationalError("database is locked")

            def close(self) -> None:
                pass

        real, cache._reader = cache._reader, Busy()  # type: ignore[assignment]
        try:
            hit = await cache.get(key)  # SQLite busy on the reader: the worker thread answers
        finally:
            cache._reader = real
        assert hit is not None and hit.text == "text 1"


async def test_replay_mode_records_nothing(tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    path = tmp_path / "c.sqlite"
    with CompletionCache(path, "rw") as cache:
        await cache.put(*_entry(1), endpoint, None)
    with CompletionCache(path, "replay") as cache:
        await cache.put(*_entry(2), endpoint, None)
        assert (await cache.get("key-1")) is not None and await cache.get("key-2") is None
        assert cache._writer.rows == 0


async def test_a_failed_write_leaves_the_cache_usable(tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    with CompletionCache(tmp_path / "c.sqlite", "rw") as cache:
        bad = ("k", "p", "u", "m", None, None, None, {"not": "bindable"}, None, 1, 1, 0, 0,
               0.1, 0.0)
        with pytest.raises(sqlite3.Error):
            await cache._writer.submit(bad)  # rolled back: the transaction did not stay open
        await cache.put(*_entry(7), endpoint, None)
        hit = await cache.get("key-7")
        assert hit is not None and hit.text == "text 7"
        assert cache._conn is not None and not cache._conn.in_transaction


async def test_an_answer_sqlite_will_not_take_fails_alone(tmp_path: Path) -> None:
    """A reply with a lone surrogate (a server cutting an emoji in half) cannot be stored;
    the answers committed in the same batch are recorded all the same."""
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    with CompletionCache(tmp_path / "c.sqlite", "rw") as cache:
        entries = [_entry(i) for i in range(6)]
        bad_key, bad = entries[3]
        entries[3] = (bad_key, Completion("half \ud83d", bad.usage, 0.01, bad.model,
                                          bad.provider))
        results = await asyncio.gather(*(cache.put(k, c, endpoint, None) for k, c in entries),
                                       return_exceptions=True)
        assert [isinstance(r, UnicodeEncodeError) for r in results] == [
            False, False, False, True, False, False]
        for i in (0, 1, 2, 4, 5):
            hit = await cache.get(f"key-{i}")
            assert hit is not None and hit.text == f"text {i}"


async def test_recording_into_a_closed_cache_is_an_error_not_a_silent_loss(
        tmp_path: Path) -> None:
    env = {"W_BASE_URL": "http://127.0.0.1:1/v1", "W_API_KEY": "k" * 10}
    endpoint = resolve_model("openai-api/w/m", env)
    cache = CompletionCache(tmp_path / "c.sqlite", "rw")
    cache.close()
    with pytest.raises(CacheError, match="was closed; the answer was not recorded"):
        await cache.put(*_entry(1), endpoint, None)


async def test_a_llamacpp_run_replays_in_the_next_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``llamacpp/`` starts its server on a port chosen at random in each process: the
    recorded answers of one run are found in the next (rw and replay), whose server
    listens elsewhere. A stub server per "process" stands in for llama.cpp's."""
    import accord.llm.local as local

    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"")
    model = f"llamacpp/{gguf}"
    path = tmp_path / "cache.sqlite"
    prompt = _conversation(1)[0]

    async def one_call(stub: StubServer, mode: str) -> Completion:
        monkeypatch.setattr(local, "local_base_url", lambda p, env: stub.base_url)
        with CompletionCache(path, mode) as cache:
            async with LLMRuntime(cache=cache) as rt:
                return await rt.client(model).complete(prompt,
                                                       scope=CallScope("ep-1", "buyer", 1))

    with StubServer(ScriptedPolicy(["<ACCEPT/>"], cycle=True)) as first:
        recorded = await one_call(first, "rw")
    with StubServer(ScriptedPolicy(["something else"], cycle=True)) as second:
        assert second.port != first.port
        replayed = await one_call(second, "replay")
        again = await one_call(second, "rw")
        assert second.requests == []
    assert recorded.text == replayed.text == again.text == "<ACCEPT/>"
    assert replayed.from_cache and again.from_cache
    rows = sqlite3.connect(path).execute("SELECT base_url FROM completions").fetchall()
    assert rows == [("llamacpp://local",)]  # no port of a server long gone
