"""Issue 24: HiGHS prints into ``--json`` stdout.

HiGHS writes some diagnostics (``HighsMipSolverData::...``) with C ``printf`` straight to
file descriptor 1, whatever ``disp=False`` says. The solver call runs with fd 1 sent to
stderr, so a ``--json`` command's stdout is exactly its one document. The tests make the
solver write to fd 1 the way HiGHS does (``os.write(1, ...)`` from inside ``milp``), in this
process (``capfd``) and through the real command in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accord.solvers.ilp import max_weight_selection, stdout_to_stderr

REPO = Path(__file__).resolve().parents[2]
INSTANCE = REPO / "src/accord/domains/deliberation/data/instances/task-allocation/00.json"
NOISE = b"HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\n"


def test_fd_level_solver_output_goes_to_stderr(capfd: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import scipy.optimize

    real = scipy.optimize.milp

    def noisy(*args: object, **kwargs: object) -> object:
        os.write(1, NOISE)
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "milp", noisy)
    print("before", flush=True)
    best = max_weight_selection([3, 2, 4], [[1, 1, 1]], [2])
    print("after", flush=True)
    assert best.objective == 7
    out, err = capfd.readouterr()
    assert out == "before\nafter\n"  # accord's own output kept, in order
    assert "HighsMipSolverData" in err  # the solver's output kept, on stderr


def test_stdout_is_restored_after_an_error(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RuntimeError), stdout_to_stderr():
        raise RuntimeError("solver failed")
    os.write(1, b"back\n")
    assert capfd.readouterr().out == "back\n"


CHILD = f"""
import os, sys, scipy.optimize
real = scipy.optimize.milp
def noisy(*a, **k):
    os.write(1, {NOISE!r})
    return real(*a, **k)
scipy.optimize.milp = noisy
sys.argv = ["accord", *sys.argv[1:]]
from accord.cli import main
main()
"""


@pytest.mark.parametrize("agent_without_resources", [False, True])
def test_deliberation_solve_json_is_one_document(agent_without_resources: bool,
                                                 tmp_path: Path) -> None:
    data = json.loads(INSTANCE.read_text())
    if agent_without_resources:  # the shape of the report: private_resources: {}
        data["private_resources"][data["agents"][1]] = {}
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([sys.executable, "-c", CHILD, "deliberation", "solve", str(path),
                           "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)  # the whole of stdout: one document, no solver lines
    assert {"reward", "decision"} <= set(doc)  # (and optimal, time_limit)
    assert "HighsMipSolverData" in proc.stderr
