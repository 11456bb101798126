"""The built wheel works outside the checkout: every data file the package reads at run
time is in it, and the commands run from another directory in a fresh virtual env."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
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
    # accord report renders the packaged templates and stylesheet
    _run([exe, "report", "runs/demo.db", "-o", "demo.html"], cwd=elsewhere)
    assert "<svg" in (elsewhere / "demo.html").read_text()
    if (DOND / "test.txt").is_file():
        _run([exe, "dond", "stats", "--data", str(DOND)], cwd=elsewhere)
    _readme_tour(env_dir, tmp_path / "tour")
    # every --json command, now through the installed script
    j = _json_cases()
    monkeypatch.setattr(j, "COMMAND", [exe])
    (tmp_path / "json").mkdir()
    work = j.build_work(tmp_path / "json")
    for name, fn in sorted(j.CASES.items()):
        if name.startswith("dond") and not (DOND / "test.txt").is_file():
            continue
        fn(work)


#: README commands that need the internet, or serve until stopped: not run by the tour
NEEDS_NETWORK = ("anthropic/", "accord dond download", "accord serve",
                 # the real local model: the accord[local] extra and a 98 MB download
                 "accord.testing.models", "llamacpp/")
#: a README model string is answered by the in-process mock policy of its domain
MOCKS = (("dond", "mock/dond"), ("task-exchange", "mock/task-exchange"),
         ("", "mock/negotiator"))


def readme_commands() -> list[str]:
    """Every ``accord ...`` line of the README's bash blocks, comments dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            cmd = line.split("  #")[0].strip()
            if cmd.startswith(("accord ", "python -m accord")):
                out.append(cmd)
    return out


def _readme_tour(env_dir: Path, where: Path) -> None:
    """Run the README's commands with the installed ``accord`` from a folder of its own,
    with the files the README's placeholders name written first."""
    where.mkdir()
    text = (REPO / "README.md").read_text(encoding="utf-8")
    scenario = re.search(r"```yaml\n(name: laptop-sale.*?)```", text, re.S)
    assert scenario, "the README's scenario example"
    if not any("--out my-scenario.yaml" in cmd for cmd in readme_commands()):
        # (the tour writes its own with accord scenarios show)
        (where / "my-scenario.yaml").write_text(scenario.group(1), encoding="utf-8")
    (where / "my-spec.yaml").write_text((REPO / "src/accord/configs/demo.yaml").read_text())
    (where / "my-game.json").write_text(
        '{"type": "normal", "players": ["A", "B"], "actions": [["c", "d"], ["c", "d"]], '
        '"payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}')
    inst = sorted((REPO / "src/accord/domains/deliberation/data/instances/menu-numeric")
                  .glob("*.json"))[0]
    (where / "my-instance.json").write_text(inst.read_text())
    # the README's importer placeholders: a Genius domain folder and two GeniusWeb profiles
    shutil.copytree(REPO / "tests/formats/fixtures/genius/party",
                    where / "path/to/anac-domain-folder")
    for mine, theirs in (("profileA.json", "jobs1.json"), ("profileB.json", "jobs2.json")):
        shutil.copy(REPO / "tests/formats/fixtures/geniusweb/jobs" / theirs, where / mine)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}"
    if (DOND / "test.txt").is_file():
        env["ACCORD_DATA"] = str(DOND)
    ran = 0
    for cmd in readme_commands():
        if any(n in cmd for n in NEEDS_NETWORK) or ("dond" in cmd and "ACCORD_DATA" not in env):
            continue
        cmd = cmd.replace("~/accord-data", str(DOND))
        mock = next(m for key, m in MOCKS if key in cmd)
        cmd = cmd.replace("openai/gpt-4.1-mini", mock)
        if "ID-PREFIX" in cmd:
            store = next(w for w in cmd.split() if w.endswith(".db"))  # the command's store
            eps = json.loads(subprocess.run(
                ["accord", "results", store, "--episodes", "--json"], cwd=where,
                env=env, capture_output=True, text=True, check=True).stdout)["episodes"]
            cmd = cmd.replace("ID-PREFIX", eps[0]["id"][:8])
        proc = subprocess.run(["bash", "-c", cmd], cwd=where, env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, (cmd, proc.stdout[-2000:], proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, (cmd, proc.stderr[-2000:])
        ran += 1
    assert ran >= 30, ran  # the tour really ran, not a filtered-away list


def _json_cases() -> ModuleType:
    """tests/cli/test_json_outputs.py as a module (its cases and its ``accord`` runner)."""
    path = REPO / "tests" / "cli" / "test_json_outputs.py"
    spec = importlib.util.spec_from_file_location("accord_json_cases", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
