"""``accord.testing.memory.run_capped`` measures a command's peak RSS and caps it."""

from __future__ import annotations

import sys

from accord.testing.memory import run_capped


def test_peak_is_the_commands_own() -> None:
    code = "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('ok')"
    run = run_capped([sys.executable, "-c", code], cap_bytes=1024 * 1024 * 1024)
    assert run.returncode == 0 and run.stdout.strip() == "ok"
    assert 200 * 1024 <= run.peak_kb < 1024 * 1024


def test_the_cap_turns_a_runaway_into_a_memory_error() -> None:
    run = run_capped([sys.executable, "-c", "b = bytearray(2 * 1024 ** 3)"],
                     cap_bytes=512 * 1024 * 1024)
    assert run.returncode == 1 and "MemoryError" in run.stderr
