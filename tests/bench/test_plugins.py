"""``--plugin`` takes a module name or a Python file, from the current folder too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accord.bench.expand import import_plugins

SRC = str(Path(__file__).resolve().parents[2] / "src")

PLUGIN = """
from accord.agents.registry import register_negotiator
from accord.agents.concession import TimeBasedAgent

register_negotiator("{kind}", lambda spec, ctx: TimeBasedAgent(0.2, name="{kind}"),
                    stochastic=False)
"""


def _accord(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The ``accord`` console script as a person runs it: the current folder is NOT on
    ``sys.path`` (``python -c`` with the script's entry point, ``-P`` drops the cwd)."""
    env = {**os.environ, "PYTHONPATH": SRC}
    code = "import sys; from accord.cli.main import main; sys.argv[0] = 'accord'; main()"
    return subprocess.run([sys.executable, "-P", "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize("how", ["./mine_file.py", "mine_file.py", "mine_file"])
def test_plugin_in_the_current_folder_loads_without_pythonpath(tmp_path: Path,
                                                               how: str) -> None:
    (tmp_path / "mine_file.py").write_text(PLUGIN.format(kind="mine-agent"), "utf-8")
    res = _accord(["run", "bargaining/buyer-seller", "-a", "mine-agent,conceder",
                   "--plugin", how, "--json"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["status"] in ("agreement", "no_deal")


def test_missing_plugin_file_is_named(tmp_path: Path) -> None:
    res = _accord(["run", "bargaining/buyer-seller", "-a", "linear,linear",
                   "--plugin", "./nope.py"], tmp_path)
    assert res.returncode == 2 and "no plugin file ./nope.py" in res.stderr


def test_file_plugin_is_imported_once(tmp_path: Path) -> None:
    path = tmp_path / "count_plugin.py"
    path.write_text("import builtins\n"
                    "builtins.__dict__.setdefault('_accord_t28', []).append(1)\n", "utf-8")
    import builtins
    try:
        import_plugins([str(path), str(path)])
        import_plugins([str(path)])
        assert builtins.__dict__["_accord_t28"] == [1]
    finally:
        builtins.__dict__.pop("_accord_t28", None)
        sys.modules.pop("count_plugin", None)


def test_bench_config_takes_a_plugin_file(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from accord.bench import BenchOptions, parse_config, run_bench

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench_plugin_t28.py").write_text(PLUGIN.format(kind="bench-file-agent"),
                                                  "utf-8")
    cfg = parse_config({"name": "p", "domain": "bargaining", "scenarios": ["buyer-seller"],
                        "agents": [["bench-file-agent", "conceder"]], "seeds": 1,
                        "plugins": ["./bench_plugin_t28.py"]}, "<test>")
    try:
        rep = run_bench(cfg, BenchOptions(store=str(tmp_path / "p.db"), quiet=True))
        assert rep.done == 1 and rep.failed == 0
    finally:
        sys.modules.pop("bench_plugin_t28", None)
