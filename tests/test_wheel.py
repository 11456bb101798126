"""The built wheel works outside the checkout: every data file the package reads at run
time is in it, and the commands run from another directory in a fresh virtual env."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
DOND = Path(os.environ.get("ACCORD_DATA", REPO.parent / "shared" / "data")) / "dealornodeal"


def _run(cmd: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ACCORD_DATA", "PYTHONPATH",
                                                             "VIRTUAL_ENV")}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, (cmd, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def _package_files() -> set[str]:
    """Every non-Python file under src/accord that is tracked (data the package reads)."""
    out = subprocess.run(["git", "ls-files", "src/accord"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.split()
    return {f.removeprefix("src/") for f in out if not f.endswith(".py")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist),
          str(REPO)], cwd=dist)
    return next(dist.glob("accord-*.whl"))


def test_wheel_holds_every_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_package_files() - names)
    assert not missing, f"not in the wheel: {missing[:20]}"
    assert "accord/bench/data/schema.sql" in names
    assert "accord/configs/demo.yaml" in names


@pytest.mark.slow
def test_wheel_runs_from_another_directory(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Run by ``.ci/wheel-check``, which builds the wheel, installs it with its ``llm``
    extra into a fresh venv outside the checkout and points ``ACCORD_WHEEL_VENV`` at it
    (installing takes minutes, so the plain test run leaves it to that CI step)."""
    root = os.environ.get("ACCORD_WHEEL_VENV")
    if not root:
        pytest.skip("set ACCORD_WHEEL_VENV to a venv with the wheel installed "
                    "(bash .ci/wheel-check does it)")
    env_dir = Path(root)
    py = env_dir / "bin" / "python"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    exe = str(env_dir / "bin" / "accord")
    version = _run([exe, "--version"], cwd=elsewhere).stdout
    assert version.startswith("accord ")
    where = _run([str(py), "-c", "import accord; print(accord.__file__)"], cwd=elsewhere)
    assert str(env_dir.resolve()) in str(Path(where.stdout.strip()).resolve())
    assert str(REPO) not in where.stdout  # the installed copy, not the checkout
    demo = _run([exe, "demo", "--quick"], cwd=elsewhere).stdout
    assert "AGREEMENT" in demo
    assert "Running HiGHS" not in demo
    _run([exe, "bench", "demo"], cwd=elsewhere)
    assert (elsewhere / "runs" / "demo.db").is_file()
    if (DOND / "test.txt").is_file():
        _run([exe, "dond", "stats", "--data", str(DOND)], cwd=elsewhere)
    # every --json command, now through the installed script
    j = _json_cases()
    monkeypatch.setattr(j, "COMMAND", [exe])
    (tmp_path / "json").mkdir()
    work = j.build_work(tmp_path / "json")
    for name, fn in sorted(j.CASES.items()):
        if name.startswith("dond") and not (DOND / "test.txt").is_file():
            continue
        fn(work)


def _json_cases() -> ModuleType:
    """tests/cli/test_json_outputs.py as a module (its cases and its ``accord`` runner)."""
    path = REPO / "tests" / "cli" / "test_json_outputs.py"
    spec = importlib.util.spec_from_file_location("accord_json_cases", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
