"""Notices of slow LLM calls: a person at a terminal sees ``waiting for MODEL (N s,
attempt 1 of 4)`` on stderr while a call waits; a pipe or ``--json`` stdout never does
(unless ``--verbose``). Checked under a real pseudo-terminal against a slow stub."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.llm import progress
from accord.llm.progress import WaitNotice, short_model, watch
from accord.testing.stub import FixedLatencyPolicy, StubServer

SRC = Path(__file__).resolve().parents[2] / "src"


def test_notice_text_shortens_a_gguf_path() -> None:
    notice = WaitNotice("llamacpp//home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf", 32.4, 1, 6)
    assert notice.text() == ("waiting for llamacpp/SmolLM2-135M-Instruct.Q4_1.gguf (32 s, "
                             "attempt 1 of 6)")
    assert short_model("openai-api/" + "x" * 80).endswith("…")
    assert len(short_model("openai-api/" + "x" * 80)) == progress.MODEL_CHARS


async def test_a_waiting_call_is_reported_and_a_quick_one_is_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(progress.SLOW_ENV, "0.01")
    seen: list[WaitNotice] = []
    reported = asyncio.Event()

    def reporter(notice: WaitNotice) -> None:
        seen.append(notice)
        reported.set()

    previous = progress.set_wait_reporter(reporter)
    try:
        async with watch("m/slow", 2, 4):
            await reported.wait()  # the "call" ends only once it has been reported
        async with watch("m/quick", 1, 4):
            pass
        await asyncio.sleep(0.05)  # a cancelled watcher must not report afterwards
    finally:
        progress.set_wait_reporter(previous)
    assert {n.model for n in seen} == {"m/slow"}
    assert (seen[0].attempt, seen[0].attempts) == (2, 4)


async def test_no_reporter_no_watcher_task() -> None:
    previous = progress.set_wait_reporter(None)
    try:
        before = asyncio.all_tasks()
        async with watch("m/any", 1, 4):
            assert asyncio.all_tasks() == before  # nothing started for this attempt
    finally:
        progress.set_wait_reporter(previous)


@pytest.fixture
def slow_stub() -> Iterator[StubServer]:
    with StubServer(policies={"slow": FixedLatencyPolicy(1.5, inner="negotiator")}) as stub:
        yield stub


def _run(stub: StubServer, *, terminal: bool, verbose: bool = False) -> tuple[str, str]:
    """``accord run`` with an LLM party on the slow stub: (stdout, stderr), stderr a
    pseudo-terminal or a pipe."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "STUB_BASE_URL": stub.base_url,
           "STUB_API_KEY": "sk-stub-test-key-000111222", progress.SLOW_ENV: "0.2",
           "COLUMNS": "200"}
    env.pop("ACCORD_VERBOSE", None)
    cmd = [sys.executable, "-m", "accord", *(["--verbose"] if verbose else []), "run",
           "bargaining/buyer-seller", "--agents", "llm:openai-api/stub/slow,boulware",
           "--max-rounds", "1", "--json"]
    if not terminal:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        return done.stdout, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.wait(timeout=300)
    return out, b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize(("terminal", "verbose", "shown"), [
    (True, False, True),    # a person at a terminal sees it
    (False, False, False),  # a pipe does not
    (False, True, True),    # unless --verbose
])
def test_slow_call_notice_on_stderr_only(slow_stub: StubServer, terminal: bool,
                                         verbose: bool, shown: bool) -> None:
    out, err = _run(slow_stub, terminal=terminal, verbose=verbose)
    doc = json.loads(out)  # stdout stays one JSON document
    assert doc["status"] in ("agreement", "no_deal")
    assert "waiting for" not in out
    line = "waiting for openai-api/stub/slow ("
    assert (line in err) is shown, err
    if shown:
        assert "s, attempt 1 of 4)" in err
        # rate-limited: one line per 10 s for the whole command, not one per call or tick
        assert err.count("waiting for") == 1
