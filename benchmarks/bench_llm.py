"""Issues 4 and 16: LLM fan-out efficiency, client CPU per call and prefix reuse (stub).

Runs episodes of about 10 LLM calls each (two parties, 5 calls each, append-only
sessions) against the OpenAI-compatible stub server answering every request after a
fixed 100 ms, through accord's full client path (openai SDK, HTTP, limits, retries,
accounting; optionally the SQLite cache). The stub runs in a child process, so the
CPU time measured here is the client's alone.

**The client** is accord's LLM layer: building the request, HTTP, parsing the answer,
accounting, limits, retries, cache hooks, redaction. Its CPU per call at c=64 is printed
apart from the episode's own work (prompt rendering, session lists, the task awaiting the
answer): the same episodes run, in the same repeat, on a stand-in that answers after
100 ms with no client at all (``episode side``), and each variant's figure minus that one
is its client's. The same episodes on bare HTTP clients POSTing the same JSON and
``json.loads``-ing the reply, at most c in flight, give the floors of each HTTP client in
this harness (:data:`RAW_CLIENTS`): ``raw aiohttp`` (a plain session), ``raw aiohttp
tuned`` (no cookie jar, no decompression, no automatic headers, no timeout objects),
``raw httpx`` (``httpx.AsyncClient``: httpcore and h11, what the SDKs use by default) and
``raw asyncio.Protocol+httptools`` (accord's own keep-alive client,
:mod:`accord.llm.backends.http1`, with no LLM layer); the in-process mock provider gives
accord's LLM layer without HTTP. Issue 30's goal: accord's client over HTTP <= 0.5 ms per
call at c=64; accord over each direct transport (httptools, the default when installed,
and aiohttp, the one before) runs at c=64 side by side.

The CPU cost of the same code moves with the machine's state: each time the process
sleeps (its loop has nothing ready) the next burst of work costs tens of microseconds more
CPU (cold caches and branch predictors after the switch), so an idle machine, where the
loop sleeps between nearly every two answers, reads higher than a loaded one, where
answers queue up while the process waits for a core. Each repeat therefore times a fixed
reference workload, back to back and with a 1 ms sleep between units, and every row
shows the context switches per call; compare figures only within one run.

Figures per concurrency level (per-endpoint limit c):

* efficiency = ideal / wall, with ideal ``calls x latency / c`` (issue 16 goal: >= 0.9
  at c=64), median and spread over runs;
* client CPU time per call (process CPU time / calls), and the part of it the episode
  spends rendering prompts (accord's Jinja templates, not the LLM layer);
* the stub server's CPU per call (its own process), reported apart so the client
  figure stays the client's;
* the share of each prompt that is an unchanged prefix of the same party's previous
  prompt (as the stub reports it in ``cached_tokens``, and recomputed here).

Concurrency 1 would take 2000 x 0.1 s = 200 s, so by default it runs 20 episodes
(200 calls, about 20 s); ``--c1-episodes 200`` runs the full count. A level c runs at
least 2c episodes (each episode's calls are sequential, so fewer could not keep c calls
in flight).

Variants in the same run: the default HTTP transport (httptools when installed, else
aiohttp; see ``accord.llm.backends.transport``) at every level; the SDKs' httpx transport (what
accord used before issue 16) at ``--baseline-levels``, as the before figure; the
SQLite cache (rw; with the answers per SQLite commit of its group writer) and the
in-process mock provider at c=64; c=64 with ``--long-episodes`` (640: 10 s ideal), where
the one-time ramp-up (every episode starting at once: about 100 ms before the first
wave is on the wire) and the tail (fewer than c calls left) weigh a third as much as
in the default 3 s run (the mock provider, with no HTTP at all, reaches only about 0.93
at 200 episodes); and c=64 split over ``--processes`` client processes of c/N slots
each, as ``accord bench --executor process`` runs a sweep. ``--split`` adds where the
client's CPU goes at c=64 (self time per package under cProfile, which inflates
call-heavy code: read the shares, not the absolute figures).

    python benchmarks/bench_llm.py [--quick] [--levels 1,16,64,256] [--repeat 3] [--split]
                                   [--long-episodes 640] [--processes 2]

Before/after: run the same script with ``PYTHONPATH=OLD_CHECKOUT/src`` (the old tree's
``accord`` is imported instead), alternating with the current tree.

Episodes are pluggable (:data:`EPISODES`): ``synthetic`` builds the conversations
here with accord's own bargaining prompt templates (``accord.agents.negotiator_prompts``,
the text the LLM negotiator sends); a
``negotiation`` kind running real LLM-negotiator episodes can be registered with
the same signature ``async (client, episode_id, turns) -> None``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from _util import machine

from accord.agents.negotiator_prompts import system_text, turn_text
from accord.llm import CallScope, CompletionCache, LLMClient, LLMRuntime
from accord.llm.backends.transport import effective_transport, httptools_available
from accord.llm.tokens import message_tokens, shared_prefix

LATENCY = 0.1
#: issue 30's goal for the client's own CPU per call at c=64 (ms)
CLIENT_GOAL_MS = 0.5
UTILITY: dict[str, Any] = {
    "issues": {"price": [100, 120, 140, 160, 180], "delivery": ["1w", "2w", "4w"],
               "warranty": ["none", "1y", "2y"]},
    "weights": {"price": 0.6, "delivery": 0.25, "warranty": 0.15},
    "values": {"price": {"100": 0, "120": 0.25, "140": 0.5, "160": 0.75, "180": 1},
               "delivery": {"1w": 0, "2w": 0.6, "4w": 1},
               "warranty": {"none": 1, "1y": 0.5, "2y": 0}},
    "batna": 0.35}
Episode = Callable[[Any, str, int], Awaitable[list[list[dict[str, str]]]]]
#: CPU seconds the synthetic episodes spent rendering prompts (reset per level)
RENDER_CPU = [0.0]
#: the stand-ins' answer (the stub's fixed-latency text)
REPLY = '<CONSIDER>hold</CONSIDER>\n<PROPOSAL>{"price": 50}</PROPOSAL>'


class Completer(Protocol):
    """What an episode calls: accord's :class:`LLMClient` or one of the stand-ins below."""

    async def complete(self, messages: list[dict[str, str]], config: Any = None, *,
                       scope: CallScope | None = None) -> Any:
        """The answer to ``messages`` (anything with a ``text``)."""


@dataclass(frozen=True)
class Answer:
    """A stand-in's answer."""

    text: str


class NoClient:
    """The episode side alone: every call answers :data:`REPLY` after :data:`LATENCY`
    (one ``asyncio.sleep``), with no LLM layer and no HTTP. Its CPU per call is the
    episode's own work (prompt rendering, session lists, its task's awaits), which every
    client variant pays too and which is subtracted to get a client's own figure."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages: list[dict[str, str]], config: Any = None, *,
                       scope: CallScope | None = None) -> Answer:
        """:data:`REPLY` after :data:`LATENCY` seconds."""
        self.calls += 1
        await asyncio.sleep(LATENCY)
        return Answer(REPLY)


class RawAiohttp:
    """The floor of an HTTP client: a bare ``aiohttp`` session (one connection per slot)
    POSTing the same Chat Completions JSON to the stub (``json.dumps``, the same headers
    accord sends: auth, content type, session) and ``json.loads``-ing the reply, with no
    limits, retries, accounting, redaction or error mapping. Like every raw client here it
    holds at most ``concurrency`` requests in flight (one semaphore, as accord's runtime
    does), so its pool never queues the other episodes' requests."""

    def _common(self, base_url: str, api_key: str, model: str, concurrency: int) -> None:
        """What every raw client holds: its slots, call count, URL, model and headers."""
        self.slots = asyncio.Semaphore(concurrency)
        self.calls = 0
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}",
                        "Content-Type": "application/json", "Accept": "application/json"}

    def __init__(self, base_url: str, api_key: str, model: str, concurrency: int) -> None:
        import aiohttp

        self._common(base_url, api_key, model, concurrency)
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency))

    async def complete(self, messages: list[dict[str, str]], config: Any = None, *,
                       scope: CallScope | None = None) -> Answer:
        """One POST and its decoded answer."""
        self.calls += 1
        body = json.dumps({"model": self.model, "messages": messages}).encode()
        label = scope.session() if scope is not None else None
        headers = {**self.headers, "X-Accord-Session": label} if label else self.headers
        async with self.slots, self.session.post(self.url, data=body,
                                                 headers=headers) as response:
            data = json.loads(await response.read())
        return Answer(data["choices"][0]["message"]["content"])

    async def aclose(self) -> None:
        """Close the session."""
        await self.session.close()


class RawAiohttpTuned(RawAiohttp):
    """:class:`RawAiohttp` tuned as far as aiohttp goes: no cookie jar
    (``DummyCookieJar``), no decompression, no automatic headers, no per-request
    timeout object (none on the session either), no cleanup of closed TLS sockets, a
    connector holding exactly ``concurrency`` connections, bytes read and ``json.loads``."""

    def __init__(self, base_url: str, api_key: str, model: str, concurrency: int) -> None:
        import aiohttp

        self._common(base_url, api_key, model, concurrency)
        self.headers["Accept-Encoding"] = "identity"
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency,
                                           enable_cleanup_closed=False, ttl_dns_cache=None,
                                           use_dns_cache=True),
            cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False,
            skip_auto_headers=("User-Agent", "Accept-Encoding"),
            timeout=aiohttp.ClientTimeout(total=None), raise_for_status=False,
            trust_env=False)


class RawHttpx(RawAiohttp):
    """The same POSTs on a bare ``httpx.AsyncClient`` (httpcore's pool, h11) sized for
    ``concurrency`` kept-alive connections: the SDKs' default client machinery without
    the SDK."""

    def __init__(self, base_url: str, api_key: str, model: str, concurrency: int) -> None:
        import httpx

        self._common(base_url, api_key, model, concurrency)
        self.client = httpx.AsyncClient(limits=httpx.Limits(
            max_connections=concurrency, max_keepalive_connections=concurrency),
            timeout=None)

    async def complete(self, messages: list[dict[str, str]], config: Any = None, *,
                       scope: CallScope | None = None) -> Answer:
        """One POST and its decoded answer."""
        self.calls += 1
        body = json.dumps({"model": self.model, "messages": messages}).encode()
        label = scope.session() if scope is not None else None
        headers = {**self.headers, "X-Accord-Session": label} if label else self.headers
        async with self.slots:
            response = await self.client.post(self.url, content=body, headers=headers)
        data = json.loads(response.content)
        return Answer(data["choices"][0]["message"]["content"])

    async def aclose(self) -> None:
        """Close the client."""
        await self.client.aclose()


class RawHttptools(RawAiohttp):
    """The same POSTs on accord's own keep-alive HTTP/1.1 client
    (:mod:`accord.llm.backends.http1`: ``asyncio.Protocol`` connections parsing with
    ``httptools``, llhttp's C binding), ``concurrency`` connections, no LLM layer."""

    def __init__(self, base_url: str, api_key: str, model: str, concurrency: int) -> None:
        from accord.llm.backends.http1 import Pool

        self.slots = asyncio.Semaphore(concurrency)
        self.calls = 0
        url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.pool = Pool(url, concurrency)
        self.head = self.pool.head("POST", "/" + url.split("/", 3)[3], [
            ("Authorization", f"Bearer {api_key}"), ("Content-Type", "application/json"),
            ("Accept", "application/json"), ("Accept-Encoding", "identity")])

    async def complete(self, messages: list[dict[str, str]], config: Any = None, *,
                       scope: CallScope | None = None) -> Answer:
        """One POST and its decoded answer."""
        self.calls += 1
        body = json.dumps({"model": self.model, "messages": messages}).encode()
        label = scope.session() if scope is not None else None
        extra = f"X-Accord-Session: {label}\r\n".encode() if label else b""
        async with self.slots:
            response = await self.pool.request(self.head, body, 30.0, extra)
        data = json.loads(response.body)
        return Answer(data["choices"][0]["message"]["content"])

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.aclose()


#: bare HTTP clients, the floors: (model prefix, label, class)
RAW_CLIENTS: list[tuple[str, str, type[RawAiohttp]]] = [
    ("raw-aiohttp/", "raw aiohttp", RawAiohttp),
    ("raw-aiohttp-tuned/", "raw aiohttp tuned", RawAiohttpTuned),
    ("raw-httpx/", "raw httpx", RawHttpx),
    ("raw-httptools/", "raw asyncio.Protocol+httptools", RawHttptools),
]
#: accord's direct transports run side by side at c=64 (aiohttp: the one before issue 30)
TRANSPORT_VARIANTS = ("aiohttp", "httptools") if httptools_available() else ("aiohttp",)
#: client variants that are not accord's: (model string prefix, what runs)
STAND_INS = ("none/", *(prefix for prefix, _, _ in RAW_CLIENTS))
EPISODE_SIDE = "episode side c={c} (no client)"
#: one unit of the reference workload: a 10-message request body like the episodes'
REFERENCE_UNITS = 200
REFERENCE_BODY = {"model": "m", "messages": [{"role": "user", "content": "offer " * 60}] * 10}


def reference_cpu(units: int = REFERENCE_UNITS, pause: float = 0.001) -> tuple[float, float]:
    """CPU ms of a fixed pure-Python workload (``units`` JSON round trips of a request
    body), run back to back and then in bursts with ``pause`` s sleeps between units (as
    an event loop waking for each answer does): the same work in every run, so its
    drift across runs is the machine's, not accord's."""

    def unit() -> None:
        json.loads(json.dumps(REFERENCE_BODY))

    out = []
    for gap in (0.0, pause):
        cpu0 = time.process_time()
        for _ in range(units):
            unit()
            if gap:
                time.sleep(gap)
        out.append(1e3 * (time.process_time() - cpu0))
    return out[0], out[1]


async def layer_hot(calls: int = 5000, messages: int = 7) -> float:
    """CPU microseconds per call of accord's LLM layer alone, hot: ``complete()`` on the
    mock provider's backend with its ``send`` replaced by one that answers at once (no
    policy, no tokenizer, no I/O, no sleep), ``calls`` times back to back on a session
    of ``messages`` messages: message validation, limits, the attempt deadline, retries'
    bookkeeping, redaction, accounting. Free of the machine's wake-up costs, so before
    and after compare even on a loaded machine."""
    from accord.llm.backends.base import RawReply
    from accord.llm.types import Usage

    reply = RawReply(REPLY, Usage(800, 20, 600), "stop")

    async def instant(*args: Any, **kwargs: Any) -> RawReply:
        return reply

    session = [{"role": "system", "content": "rules " * 500}] + [
        {"role": ("user", "assistant")[k % 2], "content": "offer " * 50}
        for k in range(messages - 1)]
    async with LLMRuntime(max_concurrency=64, timeout=30) as rt:
        client = rt.client("mock/fixed-latency")
        rt.backend(client.endpoint).send = instant  # type: ignore[method-assign]
        for turn in range(200):  # warm up
            await client.complete(session, scope=CallScope("hot", "a", turn))
        cpu0 = time.process_time()
        for turn in range(calls):
            await client.complete(session, scope=CallScope("hot", "a", turn))
        return 1e6 * (time.process_time() - cpu0) / calls


def client_split(results: dict[str, list[dict[str, Any]]], transport: str, c: int
                 ) -> list[tuple[str, list[float]]]:
    """Per variant: CPU ms per call minus the episode side's in the same repeat.

    What is left is the client's own CPU: the LLM layer (request building, HTTP,
    parsing, accounting, limits, retries, cache hooks) without the episode's work
    (prompt rendering, session lists, the task that awaits the answer)."""
    side = results.get(EPISODE_SIDE.format(c=c))
    if not side:
        return []
    out = []
    rows = [(f"{name} c={c}", f"accord client over HTTP ({name})")
            for name in dict.fromkeys((transport, *TRANSPORT_VARIANTS))]
    rows += [(f"mock c={c} (no HTTP)", "accord LLM layer, no HTTP (mock provider)")]
    rows += [(f"{name} c={c} (floor)", f"{name} (floor)") for _, name, _ in RAW_CLIENTS]
    for label, name in rows:
        if label in results:
            out.append((name, [r["cpu_ms_per_call"] - e["cpu_ms_per_call"]
                               for r, e in zip(results[label], side, strict=False)]))
    return out


async def synthetic_episode(client: Completer, episode: str, turns: int
                            ) -> list[list[dict[str, str]]]:
    """Two append-only sessions taking ``turns`` alternating calls; returns every prompt."""
    rounds = (turns + 1) // 2
    cpu0 = time.process_time()
    sessions = {role: [{"role": "system", "content": system_text(
        role, [o for o in ("seller", "buyer") if o != role], UTILITY["issues"], UTILITY,
        UTILITY["batna"], rounds)}] for role in ("seller", "buyer")}
    RENDER_CPU[0] += time.process_time() - cpu0
    prompts: list[list[dict[str, str]]] = []
    offer: dict[str, Any] | None = None
    for turn in range(turns):
        role = ("seller", "buyer")[turn % 2]
        other = ("seller", "buyer")[(turn + 1) % 2]
        cpu0 = time.process_time()
        prompt = turn_text(turn // 2 + 1, rounds, "propose" if offer is None else "respond",
                           offer, other if offer is not None else None)
        RENDER_CPU[0] += time.process_time() - cpu0
        sessions[role].append({"role": "user", "content": prompt})
        prompts.append(list(sessions[role]))
        done = await client.complete(sessions[role], scope=CallScope(episode, role, turn))
        sessions[role].append({"role": "assistant", "content": done.text})
        offer = {"price": 140, "delivery": "2w", "warranty": "1y"}
    return prompts


async def negotiation_episode(client: LLMClient, episode: str, turns: int
                              ) -> list[list[dict[str, str]]]:
    """A real bargaining episode: accord's LLM negotiator (buyer) against a hardliner seller.

    The LLM party makes one call per round it must move in, so ``turns`` rounds give about
    ``turns`` calls (fewer when the parties agree early). Returns the LLM party's prompts.
    """
    from accord.domains.bargaining import build_agents, resolve_scenario
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
    from accord.protocols.engine import Bounds, run_episode

    scenario = resolve_scenario("buyer-seller")
    agents = build_agents(scenario, [f"llm:{client.model}", "hardliner"], seed=0,
                          ctx={"llm": {"runtime": client.runtime}, "episode_id": episode})
    protocol = AlternatingOffers(scenario, AlternatingConfig(max_rounds=turns,
                                                             stagnation_rounds=0))
    await run_episode(protocol, agents, bounds=Bounds(max_rounds=turns))
    session = agents["buyer"].session  # type: ignore[attr-defined]
    msgs = session.messages
    return [msgs[: 2 + 2 * k] for k in range(session.calls)]


EPISODES: dict[str, Episode] = {"synthetic": synthetic_episode,
                                "negotiation": negotiation_episode}


def start_stub(kind: str = "synthetic") -> tuple[subprocess.Popen[str], str]:
    """The stub server in a child process with a fixed-latency policy; its base URL.

    For real negotiation episodes the latency wraps the rule-based negotiator policy.
    """
    extra = ["--option", "inner=negotiator"] if kind == "negotiation" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord.testing.stub", "--policy", "fixed-latency",
         "--option", f"latency={LATENCY}", "--exit-on-stdin-eof", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line)["base_url"]


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def prefix_shares(prompts: list[list[dict[str, str]]]) -> list[float]:
    """Per prompt: tokens shared with the same session's previous prompt / prompt tokens."""
    last: dict[str, list[str]] = {}
    out = []
    for prompt in prompts:
        tokens = message_tokens(prompt)
        session = prompt[0]["content"][:60]
        prev = last.get(session)
        out.append(0.0 if prev is None else shared_prefix(prev, tokens) / len(tokens))
        last[session] = tokens
    return out


async def loop_lag(out: list[float], every: float = 0.01) -> None:
    """Append how late each ``every``-second sleep wakes up: how long a ready callback
    waits for the event loop (the client's CPU saturation, seen as latency)."""
    while True:
        t0 = time.perf_counter()
        await asyncio.sleep(every)
        out.append(time.perf_counter() - t0 - every)


async def _timed(client: Any, concurrency: int, episodes: int, turns: int, kind: str,
                 tag: str, stub_pid: int) -> dict[str, Any]:
    """Run the episodes on ``client``: wall, CPU, the stub's CPU, loop lag, prompts."""
    run = EPISODES[kind]
    RENDER_CPU[0] = 0.0
    lags: list[float] = []
    ticker = asyncio.create_task(loop_lag(lags))
    use0 = resource.getrusage(resource.RUSAGE_SELF)
    wall0, cpu0, stub0 = time.perf_counter(), time.process_time(), process_cpu(stub_pid)
    # episode ids unique per run: the stub's prefix memory outlives a run
    all_prompts = await asyncio.gather(*(run(client, f"{tag}-ep{i}", turns)
                                         for i in range(episodes)))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    use1 = resource.getrusage(resource.RUSAGE_SELF)
    ticker.cancel()
    stub1 = process_cpu(stub_pid)
    return {"wall": wall, "cpu": cpu, "stub0": stub0, "stub1": stub1, "lags": lags,
            "prompts": all_prompts, "switches": (use1.ru_nvcsw - use0.ru_nvcsw,
                                                 use1.ru_nivcsw - use0.ru_nivcsw)}


async def run_level(model: str, concurrency: int, episodes: int, turns: int, kind: str,
                    cache: Path | None, tag: str, stub_pid: int = 0,
                    transport: str = "auto") -> dict[str, Any]:
    """One measurement: wall, ideal, CPU per call, prefix shares.

    ``model`` is accord's model string, or a stand-in (:data:`STAND_INS`):
    ``none/`` (:class:`NoClient`, the episode side alone) or ``raw-aiohttp/<model>``
    (:class:`RawAiohttp` against ``STUB_BASE_URL``)."""
    rows_per_commit = None
    totals: Any = None
    if model.startswith(STAND_INS):
        raw = next((cls for prefix, _, cls in RAW_CLIENTS if model.startswith(prefix)), None)
        stand_in: NoClient | RawAiohttp = (
            NoClient() if raw is None else
            raw(os.environ["STUB_BASE_URL"], os.environ["STUB_API_KEY"],
                model.split("/", 1)[1], concurrency))
        try:
            got = await _timed(stand_in, concurrency, episodes, turns, kind, tag, stub_pid)
        finally:
            if isinstance(stand_in, RawAiohttp):
                await stand_in.aclose()
        calls = stand_in.calls
    else:
        store = CompletionCache(cache, "rw") if cache else None
        async with LLMRuntime(max_concurrency=concurrency, timeout=30, cache=store,
                              transport=transport) as rt:  # type: ignore[arg-type]
            got = await _timed(rt.client(model), concurrency, episodes, turns, kind, tag,
                               stub_pid)
            totals = rt.tracker.totals()
        if store:
            writer = getattr(store, "_writer", None)  # absent before the group writer
            if writer is not None and writer.batches:
                rows_per_commit = writer.rows / writer.batches
            store.close()
        calls = totals.calls
    wall, cpu, lags, all_prompts = got["wall"], got["cpu"], got["lags"], got["prompts"]
    stub0, stub1 = got["stub0"], got["stub1"]
    shares = [s for prompts in all_prompts for s in prefix_shares(prompts)]
    later = [s for prompts in all_prompts for s in prefix_shares(prompts)[2:]]
    remote = not model.startswith(("mock/", "none/"))
    return {"concurrency": concurrency, "episodes": episodes, "calls": calls,
            "wall_s": wall, "ideal_s": calls * LATENCY / concurrency,
            "chain_s": turns * LATENCY,
            "cpu_ms_per_call": 1e3 * cpu / calls,
            "render_cpu_ms_per_call": (1e3 * RENDER_CPU[0] / calls if kind == "synthetic"
                                       else None),
            "efficiency": calls * LATENCY / concurrency / wall,
            "stub_cpu_ms_per_call": (None if stub0 is None or stub1 is None or not remote
                                     else 1e3 * (stub1 - stub0) / calls),
            "stub_cached_share": totals.cached_share if totals else None,
            "prefix_share_mean": statistics.fmean(shares),
            "prefix_share_after_first_mean": statistics.fmean(later) if later else 0.0,
            "prompt_tokens_per_call": totals.prompt_tokens / calls if totals else None,
            "latency_ms_mean": 1e3 * totals.latency / calls if totals else None,
            "cache_rows_per_commit": rows_per_commit,
            "switches_per_call": (got["switches"][0] / calls, got["switches"][1] / calls),
            "loop_lag_ms_p50": 1e3 * statistics.median(lags) if lags else None,
            "loop_lag_ms_p90": (1e3 * statistics.quantiles(lags, n=10)[-1] if len(lags) > 1
                                else None)}


def _child_level(args: tuple[str, int, int, int, str, str, float, int, str]
                 ) -> dict[str, Any]:
    """One process's share of a multi-process level, started at the shared ``start`` time."""
    model, c, episodes, turns, kind, tag, start, stub_pid, transport = args
    while time.time() < start:
        time.sleep(0.0005)
    return asyncio.run(run_level(model, c, episodes, turns, kind, None, tag, stub_pid,
                                 transport))


def run_processes(pool: Any, processes: int, model: str, concurrency: int, episodes: int,
                  turns: int, kind: str, tag: str, stub_pid: int, transport: str
                  ) -> dict[str, Any]:
    """``concurrency`` calls in flight split over ``processes`` client processes (each its
    own runtime with ``concurrency / processes`` slots and as many of the episodes), as
    ``accord bench --executor process`` runs a sweep; efficiency over the slowest one."""
    start = time.time() + 0.5  # every child is up and waiting before the clock starts
    share = [(model, concurrency // processes, episodes // processes, turns, kind,
              f"{tag}/p{i}", start, stub_pid, transport) for i in range(processes)]
    stub0 = process_cpu(stub_pid)
    parts = pool.map(_child_level, share)
    stub1 = process_cpu(stub_pid)
    calls = sum(p["calls"] for p in parts)
    wall = max(p["wall_s"] for p in parts)
    out = dict(parts[0])
    out.update({
        "concurrency": concurrency, "episodes": sum(p["episodes"] for p in parts),
        "calls": calls, "wall_s": wall, "ideal_s": calls * LATENCY / concurrency,
        "efficiency": calls * LATENCY / concurrency / wall,
        "cpu_ms_per_call": sum(p["cpu_ms_per_call"] * p["calls"] for p in parts) / calls,
        "render_cpu_ms_per_call": statistics.fmean(p["render_cpu_ms_per_call"] or 0.0
                                                   for p in parts),
        "stub_cpu_ms_per_call": (None if stub0 is None or stub1 is None
                                 else 1e3 * (stub1 - stub0) / calls),
        "latency_ms_mean": statistics.fmean(p["latency_ms_mean"] for p in parts),
        "switches_per_call": tuple(sum(p["switches_per_call"][k] * p["calls"] for p in parts)
                                   / calls for k in (0, 1)),
        "loop_lag_ms_p50": max(p["loop_lag_ms_p50"] or 0.0 for p in parts),
        "loop_lag_ms_p90": max(p["loop_lag_ms_p90"] or 0.0 for p in parts)})
    return out


def spread(values: list[float], fmt: str = "{:.3f}") -> str:
    """``median (min-max)``."""
    if len(values) == 1:
        return fmt.format(values[0])
    return (fmt.format(statistics.median(values)) + " (" + fmt.format(min(values)) + "-"
            + fmt.format(max(values)) + ")")


def _median_or_dash(values: list[float | None], fmt: str = "{:.3f}") -> str:
    known = [v for v in values if v is not None]
    return fmt.format(statistics.median(known)) if known else "-"


#: where a function's self time is booked in ``--split``: first matching path part wins
SPLIT = [
    ("prompt rendering (jinja, agents' templates)", ("jinja2", "accord/agents/")),
    ("openai SDK: request building, request loop", ("openai/",)),
    ("httpx client layer (Request, URL, headers)", ("httpx2/", "httpcore2/", "httpx/")),
    ("aiohttp transport (connection, HTTP/1.1)", ("aiohttp/", "multidict/", "yarl/")),
    ("accord's HTTP/1.1 client (http1, httptools)", ("accord/llm/backends/http1.py",
                                                     "httptools/")),
    ("pydantic (SDK options, config)", ("pydantic",)),
    ("JSON encode/decode", ("json/",)),
    ("accord cache (key hashing, SQLite)", ("accord/llm/cache.py",)),
    ("accord accounting (tracker, prices)", ("accord/llm/accounting.py",
                                             "accord/llm/prices.py")),
    ("accord client (validation, limits, redaction)", ("accord/llm/", "accord/core/")),
    ("asyncio event loop, sockets", ("asyncio/", "selectors", "socket", "ssl")),
    ("bench episode code", ("bench_llm.py",)),
]


def cpu_split(model: str, concurrency: int, episodes: int, turns: int, kind: str,
              stub_pid: int) -> list[tuple[str, float]]:
    """Self CPU time per package during one level under cProfile: (label, share)."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    asyncio.run(run_level(model, concurrency, episodes, turns, kind, None, "split", stub_pid))
    prof.disable()
    stats: dict[Any, Any] = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    booked: dict[str, float] = {}
    for (path, _line, func), (_cc, _nc, tottime, _ct, _callers) in stats.items():
        where = path if path != "~" else func  # builtins: '~' and '<built-in method ...>'
        label = next((name for name, parts in SPLIT if any(p in where for p in parts)),
                     "other (builtins, stdlib)")
        booked[label] = booked.get(label, 0.0) + tottime
    total = sum(booked.values()) or 1.0
    return sorted(((k, v / total) for k, v in booked.items()), key=lambda kv: -kv[1])


def main() -> None:
    """Run the levels and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--turns", type=int, default=10, help="calls per episode")
    parser.add_argument("--c1-episodes", type=int, default=20,
                        help="episodes at concurrency 1 (200 would take ~200 s)")
    parser.add_argument("--levels", default="1,16,64,256")
    parser.add_argument("--baseline-levels", default="64,256",
                        help="levels also run over the SDKs' httpx transport (before); '' none")
    parser.add_argument("--repeat", type=int, default=3, help="runs per level (c=1: once)")
    parser.add_argument("--kind", default="synthetic", choices=sorted(EPISODES))
    parser.add_argument("--split", action="store_true",
                        help="also profile one c=64 run: client CPU share per package")
    parser.add_argument("--quick", action="store_true", help="20 episodes, 1 run per level")
    parser.add_argument("--long-episodes", type=int, default=640,
                        help="also run c=64 with this many episodes (10 s ideal at 640): "
                             "the one-time ramp-up, every episode starting at once, and the "
                             "tail, fewer than c calls left, weigh less; 0: not")
    parser.add_argument("--processes", type=int, default=2,
                        help="also run c=64 split over this many client processes (as "
                             "accord bench --executor process does); 0 or 1: not")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.c1_episodes, args.repeat, args.long_episodes = 20, 5, 1, 0
    levels = [int(c) for c in args.levels.split(",") if c]
    base_levels = [int(c) for c in args.baseline_levels.split(",") if c]
    goal = 64 if 64 in levels else max(levels)
    after = effective_transport("auto")
    load0 = os.getloadavg()
    proc, base_url = start_stub(args.kind)
    os.environ["STUB_BASE_URL"], os.environ["STUB_API_KEY"] = base_url, "bench-key-000000"
    results: dict[str, list[dict[str, Any]]] = {}
    split: list[tuple[str, float]] = []
    reference: list[tuple[float, float]] = []
    hot: list[float] = []
    pool: Any = None
    http = "openai-api/stub/fixed-latency"
    try:
        for warm in {after, "httpx"}:
            asyncio.run(run_level("openai-api/stub/warmup", 8, 4, 4, args.kind, None,
                                  f"warmup-{warm}", transport=warm))
        # (label, c, model, cached, transport)
        variants: list[tuple[str, int, str, bool, str]] = [
            (f"{after} c={c}", c, http, False, after) for c in levels]
        variants += [(f"httpx c={c} (before)", c, http, False, "httpx") for c in base_levels
                     if after != "httpx"]
        variants += [(f"{after} c={goal} +cache rw", goal, http, True, after),
                     (f"mock c={goal} (no HTTP)", goal, "mock/fixed-latency", False, after)]
        # accord over each direct transport at c=goal, side by side (before: aiohttp)
        variants += [(f"{name} c={goal}", goal, http, False, name)
                     for name in TRANSPORT_VARIANTS if name != after]
        if args.kind == "synthetic":  # the stand-ins answer synthetic episodes only
            variants += [(EPISODE_SIDE.format(c=goal), goal, "none/", False, "-")]
            variants += [(f"{name} c={goal} (floor)", goal, f"{prefix}fixed-latency", False, "-")
                         for prefix, name, _ in RAW_CLIENTS
                         if prefix != "raw-httptools/" or httptools_available()]
        if args.long_episodes:
            variants.append((f"{after} c={goal}, {args.long_episodes} episodes", goal, http,
                             False, after))
        procs = args.processes if args.processes > 1 else 0
        if procs:
            variants.append((f"{after} c={goal} in {procs} processes", goal, http, False, after))
        if procs:
            pool = multiprocessing.get_context("spawn").Pool(procs)
            # each child imports the SDKs and opens its pool before the timed runs
            pool.map(_child_level, [("openai-api/stub/warmup", 8, 4, 4, args.kind,
                                     f"warmup-p{i}", 0.0, 0, after) for i in range(procs)])
        # runs alternate (every variant once, then again): the machine's state drifts
        # (other processes, a ±30% swing in the CPU cost of the same work), and the
        # client's figure is a difference of two variants measured side by side
        for run in range(args.repeat):
            reference.append(reference_cpu())
            hot.append(asyncio.run(layer_hot()))
            for label, c, model, cached, transport in variants:
                episodes = args.c1_episodes if c == 1 else max(args.episodes, 2 * c)
                if label.endswith(f", {args.long_episodes} episodes"):
                    episodes = args.long_episodes
                if c == 1 and run > 0:
                    continue
                if label.endswith(" processes"):
                    out = run_processes(pool, procs, model, c, episodes, args.turns,
                                        args.kind, f"{label}#{run}", proc.pid, transport)
                    results.setdefault(label, []).append(out)
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    cache = Path(tmp) / "cache.sqlite" if cached else None
                    out = asyncio.run(run_level(model, c, episodes, args.turns, args.kind,
                                                cache, f"{label}#{run}", proc.pid, transport))
                out["transport"] = transport if not model.startswith("mock/") else "-"
                results.setdefault(label, []).append(out)
        if args.split:
            split = cpu_split(http, goal, max(args.episodes, 2 * goal), args.turns, args.kind,
                              proc.pid)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    load1 = os.getloadavg()
    clients = client_split(results, after, goal)
    if args.json:
        print(json.dumps({"machine": machine(), "latency_s": LATENCY, "results": results,
                          "client_cpu_ms_per_call": dict(clients),
                          "reference_cpu_ms": reference, "layer_hot_us_per_call": hot,
                          "split": split,
                          "loadavg_before": load0, "loadavg_after": load1}))
        return
    print(f"bench_llm: {machine()}; stub latency {LATENCY * 1e3:.0f} ms, "
          f"{args.turns} calls/episode, kind={args.kind}; median (min-max) over runs; "
          f"load average {load0[0]:.2f} before, {load1[0]:.2f} after")
    head = (f"{'variant':31} {'episodes':>8} {'calls':>6} {'wall s':>20} {'ideal s':>7} "
            f"{'efficiency':>20} {'wall/bound':>10} {'process CPU ms/call':>20} "
            f"{'render':>6} {'stub CPU':>8} {'latency':>7} {'lag p50/p90':>11} {'cs v/i':>9} "
            f"{'prefix':>6} {'after 1st':>9}")
    print(head)
    for label, runs in results.items():
        first = runs[0]
        walls = [r["wall_s"] for r in runs]
        print(f"{label:31} {first['episodes']:>8} {first['calls']:>6} {spread(walls):>20} "
              f"{first['ideal_s']:>7.2f} {spread([r['efficiency'] for r in runs]):>20} "
              f"{statistics.median(walls) / max(first['ideal_s'], first['chain_s']):>10.3f} "
              f"{spread([r['cpu_ms_per_call'] for r in runs]):>20} "
              f"{_median_or_dash([r['render_cpu_ms_per_call'] for r in runs]):>6} "
              f"{_median_or_dash([r['stub_cpu_ms_per_call'] for r in runs]):>8} "
              f"{_median_or_dash([r['latency_ms_mean'] for r in runs], '{:.1f}'):>7} "
              f"{_median_or_dash([r['loop_lag_ms_p50'] for r in runs], '{:.1f}'):>5}/"
              f"{_median_or_dash([r['loop_lag_ms_p90'] for r in runs], '{:.1f}'):<5} "
              f"{_median_or_dash([r['switches_per_call'][0] for r in runs], '{:.2f}'):>4}/"
              f"{_median_or_dash([r['switches_per_call'][1] for r in runs], '{:.2f}'):<4} "
              f"{first['prefix_share_mean']:>6.3f} {first['prefix_share_after_first_mean']:>9.3f}")
    stub = results[next(iter(results))][0]
    print(f"prompt tokens/call {stub['prompt_tokens_per_call']:.0f}; stub-reported cached share "
          f"of prompt tokens {stub['stub_cached_share']:.3f} (token-weighted)")
    if clients:
        side = results[EPISODE_SIDE.format(c=goal)]
        print(f"client CPU per call at c={goal} (ms; this process's CPU per call minus the "
              "episode side's in the same repeat; median (min-max) over repeats):")
        print(f"  {'episode side (prompts, sessions, awaits; no client)':52} "
              f"{spread([r['cpu_ms_per_call'] for r in side]):>20}  (rendering "
              f"{_median_or_dash([r['render_cpu_ms_per_call'] for r in side])} of it)")
        for name, diffs in clients:
            goal_note = ""
            if name.startswith("accord client over HTTP"):
                met = statistics.median(diffs) <= CLIENT_GOAL_MS
                goal_note = f"  goal <= {CLIENT_GOAL_MS} ms: {'met' if met else 'not met'}"
            print(f"  {name:52} {spread(diffs):>20}{goal_note}")
        named = dict(clients)
        for name in TRANSPORT_VARIANTS:
            http_name = f"accord client over HTTP ({name})"
            floor_name = "raw aiohttp (floor)" if name == "aiohttp" else (
                "raw asyncio.Protocol+httptools (floor)")
            if http_name in named and floor_name in named:
                floor = statistics.median(named[floor_name])
                if floor > 0:
                    print(f"  accord client ({name}) / its raw floor: "
                          f"{statistics.median(named[http_name]) / floor:.2f}x")
    if hot:
        print(f"accord's LLM layer alone, hot (a backend answering at once, back to back; "
              f"CPU us per call): {spread(hot, '{:.1f}')}")
    if reference:
        per_sleep = [1e3 * (r[1] - r[0]) / REFERENCE_UNITS for r in reference]
        print(f"reference workload ({REFERENCE_UNITS} JSON round trips of a request body, the "
              f"same each repeat; CPU ms): back to back "
              f"{spread([r[0] for r in reference], '{:.1f}')}, with a 1 ms sleep between "
              f"units {spread([r[1] for r in reference], '{:.1f}')}: "
              f"{spread(per_sleep, '{:.0f}')} us more CPU per sleep for the same work; "
              "its drift is the machine's, not accord's")
    now, before = f"{after} c={goal}", f"httpx c={goal} (before)"
    if now in results and before in results:
        cpu_now = statistics.median(r["cpu_ms_per_call"] for r in results[now])
        cpu_before = statistics.median(r["cpu_ms_per_call"] for r in results[before])
        eff_now = statistics.median(r["efficiency"] for r in results[now])
        eff_before = statistics.median(r["efficiency"] for r in results[before])
        print(f"c={goal}: client CPU/call {cpu_before:.3f} ms (httpx, before) -> {cpu_now:.3f} ms "
              f"({after}), x{cpu_before / cpu_now:.2f} less; efficiency {eff_before:.3f} -> "
              f"{eff_now:.3f} (goal >= 0.9)")
    cached_label = f"{after} c={goal} +cache rw"
    if cached_label in results:
        per_commit = [r["cache_rows_per_commit"] for r in results[cached_label]
                      if r.get("cache_rows_per_commit")]
        if per_commit:
            print(f"cache rw at c={goal}: {statistics.median(per_commit):.1f} answers per SQLite "
                  "commit (group writer; median over runs)")
    budget = 1e3 * LATENCY / goal * (os.cpu_count() or 1)
    print(f"CPU budget at c={goal}: {goal} calls per {LATENCY * 1e3:.0f} ms window on "
          f"{os.cpu_count()} cores shared by client, stub and other processes = "
          f"{budget:.2f} ms per call for client + stub together, idle machine")
    if split:
        print(f"client CPU by package at c={goal} ({after}; self time under cProfile):")
        for name, share in split:
            print(f"  {share * 100:5.1f}%  {name}")
    notes = [
        f"efficiency = ideal / wall, ideal = calls x {LATENCY:g} s / c",
        f"bound = max(ideal, {args.turns} sequential calls of one episode x {LATENCY:g} s)",
        "process CPU = this process's CPU per call (client and episodes); render = the part "
        "of it spent rendering prompts",
        "stub CPU = the stub server process (median)",
        "latency = mean ms from sending a request to its parsed answer (the stub waits 100 ms)",
        "lag = how late a 10 ms timer fires in the client's event loop (ms, median/p90)",
        "cs v/i = this process's voluntary (it slept: nothing ready) / involuntary (another "
        "process took the core) context switches per call; each costs the next burst of work "
        "tens of microseconds of CPU (see the reference workload), so an idle machine, "
        "where the loop sleeps between answers, reads higher than a busy one",
        "prefix = mean over calls of the prompt share equal to the same party's previous "
        "prompt ('after 1st': each party's first call excluded)",
    ]
    print("; ".join(notes))


if __name__ == "__main__":
    main()
