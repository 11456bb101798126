"""Every command of docs/tutorial.md runs, in order, in an empty folder; the files the
tutorial asks the reader to write are its own ``# file: NAME`` blocks, written as shown."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from accord.testing.live import announced_url

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def steps(text: str) -> list[tuple[str, str]]:
    """``("file", NAME\\0TEXT)`` and ``("run", COMMAND)`` steps, in page order."""
    out: list[tuple[str, str]] = []
    for lang, body in FENCE.findall(text):
        first = body.splitlines()[0] if body.strip() else ""
        if first.startswith("# file: "):
            out.append(("file", first[len("# file: "):].strip() + "\0" + body))
        elif lang == "bash":
            for line in body.splitlines():
                line = line.split("  #", 1)[0].strip()
                if line and not line.startswith("#"):
                    out.append(("run", line))
    return out


def _serve(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Start ``accord serve`` on a port the system picks as it binds (``--port 0``, in place
    of the tutorial's), read its front page, stop it."""
    i = argv.index("--port")
    argv = [*argv[:i + 1], "0", *argv[i + 2:]]
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        base, _ = announced_url(proc, stream="stdout")
        for _ in range(600):  # until it answers (not a timing assertion)
            if proc.poll() is not None:
                said = proc.stdout.read() if proc.stdout else ""
                raise AssertionError(f"accord serve exited: {said}")
            try:
                with urllib.request.urlopen(f"{base}/", timeout=5) as r:
                    return str(r.read().decode("utf-8"))
            except OSError:
                time.sleep(0.1)
        raise AssertionError("accord serve never answered")
    finally:
        proc.terminate()
        proc.wait(30)


def test_every_tutorial_command_runs(tmp_path: Path) -> None:
    todo = steps(PAGE.read_text(encoding="utf-8"))
    files = [s for kind, s in todo if kind == "file"]
    commands = [s for kind, s in todo if kind == "run"]
    assert [f.split("\0")[0] for f in files] == ["my-scenario.yaml", "myagent.py",
                                                "tutorial.yaml"]
    assert any(c.startswith("accord bench") for c in commands)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)  # no network
    outputs: dict[str, str] = {}
    errors: dict[str, str] = {}
    for kind, step in todo:
        if kind == "file":
            name, text = step.split("\0", 1)
            (tmp_path / name).write_text(text, encoding="utf-8")
            continue
        argv = shlex.split(step)
        assert argv[0] == "accord", f"tutorial line is not an accord command: {step}"
        argv = [sys.executable, "-m", "accord", *argv[1:]]
        if argv[3] == "serve":
            outputs[step] = _serve(argv, tmp_path, env)
            continue
        res = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, f"{step}\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
        outputs[step] = res.stdout
        errors[step] = res.stderr
    # the edited scenario is the one that ran, the agent played, the sweep was stored
    assert "refurbished-laptops" in outputs["accord analyze my-scenario.yaml"]
    mine = outputs["accord run my-scenario.yaml --agents steady,boulware --plugin ./myagent.py"]
    assert "steady" in mine
    # the page says bench notes that every line-up is deterministic (steady declares it)
    assert "note: 4 of 4 cells have only deterministic agents" in " ".join(
        errors["accord bench tutorial.yaml --out runs/tutorial.db"].split())
    board = outputs["accord leaderboard runs/tutorial.db"]
    assert "steady?margin=0.1" in board and "Rated 12 episodes" in board
    assert (tmp_path / "report.html").stat().st_size > 1000
    assert "tutorial" in outputs["accord serve runs/tutorial.db --port 8765"]


def test_the_tutorial_is_in_the_site_navigation() -> None:
    assert "Tutorial: tutorial.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
