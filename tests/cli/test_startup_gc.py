"""The ``accord`` command pauses the garbage collector while it starts (issue 30): the
imports of numpy, typer and accord make ~10^5 objects that live to the end, and the
collector traversed them every 700 allocations (~20-40 ms of CPU of ``accord run``). It
must be on again, with the start-up's objects frozen, when a command does its own work;
and a library caller's collector is never touched.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import accord.cli as cli

REPO = Path(__file__).resolve().parents[2]

#: runs ``accord ARGS`` as the console script does and reports the collector's state at the
#: episode (accord run) or in a command's body (accord scenarios, at the domain names it
#: lists), and at the end
PROBE = """
import gc, json, sys
seen = {{}}
def note(where):
    seen[where] = {{"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}}
import accord.cli
entry = accord.cli.main
note("start")
import accord.cli.run as run_module
real = run_module._run_coroutine
def spy(spec, coro):
    note("episode")
    return real(spec, coro)
run_module._run_coroutine = spy
import accord.domains as domains
real_names = domains.domain_names
def spy_names(*a, **k):
    note("command")
    return real_names(*a, **k)
domains.domain_names = spy_names
sys.argv = ["accord", *{args!r}]
try:
    entry()
except SystemExit:
    pass
note("end")
sys.stdout.flush()
print(json.dumps(seen), file=sys.stderr)
"""


def _probe(args: list[str], tmp_path: Path) -> dict[str, dict[str, int]]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=args)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    seen: dict[str, dict[str, int]] = json.loads(proc.stderr.strip().splitlines()[-1])
    return seen


def test_a_run_plays_its_episode_with_the_collector_on(tmp_path: Path) -> None:
    seen = _probe(["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                   "--json"], tmp_path)
    assert seen["start"] == {"enabled": True, "frozen": 0}
    # on again before the episode, the start-up's objects (numpy, typer, accord, the
    # scenario) in the permanent generation
    assert seen["episode"]["enabled"] and seen["episode"]["frozen"] > 10_000
    assert seen["end"]["enabled"]


def test_other_commands_run_their_body_with_the_collector_on(tmp_path: Path) -> None:
    seen = _probe(["scenarios", "--json"], tmp_path)
    assert seen["command"]["enabled"] and seen["command"]["frozen"] > 1_000
    assert seen["end"]["enabled"]


def test_help_leaves_the_collector_on(tmp_path: Path) -> None:
    seen = _probe(["--help"], tmp_path)  # never reaches a command: main() turns it on
    assert seen["end"]["enabled"] and seen["end"]["frozen"] > 0


def test_a_failing_command_leaves_the_collector_on(tmp_path: Path) -> None:
    seen = _probe(["no-such-command"], tmp_path)
    assert seen["end"]["enabled"] and seen["end"]["frozen"] > 0


def test_the_pause_ends_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc, "freeze", lambda: None)  # keep this test process's objects
    cli._pause_gc()
    try:
        assert not gc.isenabled() and cli._gc_paused
        cli.end_startup()
        assert gc.isenabled() and not cli._gc_paused
        gc.disable()
        cli.end_startup()  # the second call changes nothing
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_library_callers_collector_is_never_touched() -> None:
    """Without :func:`accord.cli.main` (``import accord``, CliRunner in tests, a program
    calling ``run_target``), :func:`end_startup` changes nothing: neither a collector the
    caller turned off nor the permanent generation."""
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        cli.end_startup()
        assert not gc.isenabled() and gc.get_freeze_count() == frozen
    finally:
        gc.enable()
    cli.end_startup()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_collector_the_user_turned_off_stays_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc, "freeze", lambda: None)
    gc.disable()
    try:
        cli._pause_gc()
        assert not cli._gc_paused
        cli.end_startup()
        assert not gc.isenabled()
    finally:
        gc.enable()
