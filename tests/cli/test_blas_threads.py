"""The ``accord`` command asks OpenBLAS for one thread before numpy's first import (issue
30: OpenBLAS's per-core worker threads spin at start-up), never over the user's own count
and never when accord is imported as a library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from accord.cli import BLAS_THREAD_VARS, one_blas_thread

REPO = Path(__file__).resolve().parents[2]

#: records the thread variables at the moment numpy is first imported, then runs CODE
PROBE = """
import json, os, sys, runpy

seen = {{}}

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.update({{v: os.environ.get(v) for v in {vars!r}}})
        return None

sys.meta_path.insert(0, Spy())
{code}
sys.stdout.flush()
print(json.dumps({{"at_numpy_import": seen,
                  "at_exit": {{v: os.environ.get(v) for v in {vars!r}}}}}), file=sys.stderr)
"""

RUN = """
sys.argv = ["accord", "run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
            "--json"]
try:
    runpy.run_module("accord", run_name="__main__")
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
"""


def _probe(code: str, tmp_path: Path, **env: str) -> tuple[dict[str, Any], str]:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARS}
    clean.update({"HOME": str(tmp_path), "PYTHONPATH": str(REPO / "src"), **env})
    proc = subprocess.run([sys.executable, "-c", PROBE.format(vars=BLAS_THREAD_VARS,
                                                             code=code)],
                          capture_output=True, text=True, timeout=300, env=clean, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def test_the_command_sets_one_thread_before_numpy_is_imported(tmp_path: Path) -> None:
    report, out = _probe(RUN, tmp_path)
    assert report["at_numpy_import"]["OPENBLAS_NUM_THREADS"] == "1"
    assert report["at_numpy_import"]["OMP_NUM_THREADS"] is None  # only OpenBLAS's own
    assert json.loads(out)["status"] == "agreement"


@pytest.mark.parametrize("var", BLAS_THREAD_VARS)
def test_a_count_the_user_gave_wins(tmp_path: Path, var: str) -> None:
    report, _ = _probe(RUN, tmp_path, **{var: "3"})
    assert report["at_numpy_import"][var] == "3"
    if var != "OPENBLAS_NUM_THREADS":  # OpenBLAS would read ours first: none is set
        assert report["at_numpy_import"]["OPENBLAS_NUM_THREADS"] is None


def test_importing_accord_as_a_library_leaves_the_environment_alone(tmp_path: Path) -> None:
    code = ("import accord, accord.cli, accord.cli.main\n"
            "from accord.domains.bargaining import resolve_scenario\n"
            "resolve_scenario('buyer-seller')\n"
            "assert 'numpy' in sys.modules\n")
    report, _ = _probe(code, tmp_path)
    assert report["at_numpy_import"]["OPENBLAS_NUM_THREADS"] is None
    assert report["at_exit"]["OPENBLAS_NUM_THREADS"] is None


def test_one_blas_thread_rules() -> None:
    env: dict[str, str] = {}
    assert one_blas_thread(env, {}) is True and env == {"OPENBLAS_NUM_THREADS": "1"}
    env = {"OMP_NUM_THREADS": "8"}
    assert one_blas_thread(env, {}) is False and env == {"OMP_NUM_THREADS": "8"}
    env = {"OPENBLAS_NUM_THREADS": ""}  # empty is unset for OpenBLAS too
    assert one_blas_thread(env, {}) is True and env["OPENBLAS_NUM_THREADS"] == "1"
    env = {}
    assert one_blas_thread(env, {"numpy": object()}) is False and env == {}
