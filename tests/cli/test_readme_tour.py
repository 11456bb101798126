"""Every command of the README's "A short tour" (and the getting-started page's copy of it)
runs, in order, in an empty folder: the tour's files come from its own commands."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: a command that needs a model endpoint's key is skipped (none in the tour today)
NEEDS_KEY = re.compile(r"llm:(openai|anthropic|gemini|together|openrouter)/")


def tour_commands(page: Path, heading: str) -> list[str]:
    """The command lines of the first ``bash`` block after ``heading``, comments cut."""
    text = page.read_text(encoding="utf-8")
    start = text.index(heading)
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None, f"no bash block after {heading!r} in {page.name}"
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


@pytest.mark.parametrize(("page", "heading"), [
    (ROOT / "README.md", "## A short tour"),
    (ROOT / "docs" / "getting-started.md", "## A short tour"),
])
def test_every_tour_command_runs(tmp_path: Path, page: Path, heading: str) -> None:
    commands = tour_commands(page, heading)
    assert any("scenarios show" in cmd for cmd in commands)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)  # no network: a command may not reach a real endpoint
    ran = 0
    for cmd in commands:
        if NEEDS_KEY.search(cmd):
            continue  # needs an API key: skipped, the tour says so beside it
        argv = shlex.split(cmd)
        if argv[0] == "accord":
            argv = [sys.executable, "-m", "accord", *argv[1:]]
        elif argv[:3] == ["python", "-m", "accord"]:
            argv = [sys.executable, *argv[1:]]
        else:
            pytest.fail(f"{page.name}: tour line is not an accord command: {cmd}")
        res = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, f"{cmd}\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
        ran += 1
    assert ran == len(commands)
    assert (tmp_path / "my-scenario.yaml").is_file() and (tmp_path / "run.jsonl").is_file()
