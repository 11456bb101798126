"""Run a command with its memory capped and measured: for tests of memory budgets.

:func:`run_capped` starts a small Python wrapper that caps the address space of the
command (``RLIMIT_AS``, so code without a budget fails with ``MemoryError`` instead of
taking the machine) and reports the command's own peak resident set size. The wrapper
has no other children, so the figure is the command's alone (``RUSAGE_CHILDREN`` of the
test process itself would be the largest of every child any test ever waited for).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: default address-space cap of the command (bytes)
DEFAULT_CAP = 1536 * 1024 * 1024

_WRAPPER = """
import json, resource, subprocess, sys
cap, argv = int(sys.argv[1]), sys.argv[2:]
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
proc = subprocess.run(argv, capture_output=True, text=True, preexec_fn=limit)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
json.dump({"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr,
           "peak_kb": peak}, sys.stdout)
"""


@dataclass(frozen=True)
class CappedRun:
    """What :func:`run_capped` saw: exit status, output and peak RSS in KiB (Linux)."""

    returncode: int
    stdout: str
    stderr: str
    peak_kb: int


def run_capped(argv: Sequence[str], *, env: Mapping[str, str] | None = None,
               cap_bytes: int = DEFAULT_CAP, timeout: float = 300) -> CappedRun:
    """Run ``argv`` under an address-space cap of ``cap_bytes``; ``timeout`` is a hang
    guard (``subprocess.TimeoutExpired``), not a measurement."""
    out = subprocess.run([sys.executable, "-c", _WRAPPER, str(int(cap_bytes)), *argv],
                         capture_output=True, text=True, env=dict(env) if env else None,
                         timeout=timeout, check=True)
    data = json.loads(out.stdout)
    return CappedRun(int(data["returncode"]), data["stdout"], data["stderr"],
                     int(data["peak_kb"]))


def accord_argv(*args: str) -> list[str]:
    """``python -m accord ARGS`` with this interpreter."""
    return [sys.executable, "-m", "accord", *args]
