"""``accord run -q`` prints only the outcome, in one line, at a terminal and piped.

It printed the record table, the utility table and the stagnation rule's note although its
help said "no progress bar, transcript or summary".
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from accord.cli.main import app
from accord.cli.quiet import quiet_line

SRC = str(Path(__file__).resolve().parents[2] / "src")
RUN = ["run", "bargaining/buyer-seller", "--agents", "boulware,conceder", "-q"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _piped(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "accord", *args], capture_output=True,
                          text=True, env=_env(), check=False)


def _at_a_terminal(*args: str) -> str:
    """stdout of ``accord ARGS`` written to a pseudo-terminal (as a person sees it)."""
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "accord", *args], stdout=child,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=_env())
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.wait() == 0
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def _one_outcome_line(out: str) -> str:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    assert "Stagnation" not in out and "┃" not in out and "│" not in out
    return lines[0]


def test_quiet_run_prints_one_outcome_line_when_piped() -> None:
    res = _piped(*RUN)
    assert res.returncode == 0, res.stderr
    line = _one_outcome_line(res.stdout)
    assert line == ("Agreement in round 18 (proposed by seller): price=900, delivery_days=10, "
                    "warranty_years=2; utilities buyer 0.69, seller 0.42.")


def test_quiet_run_prints_one_outcome_line_at_a_terminal() -> None:
    line = _one_outcome_line(_at_a_terminal(*RUN))
    assert line.startswith("Agreement in round 18 (proposed by seller): price=900")


def test_quiet_does_not_touch_json() -> None:
    loud = CliRunner().invoke(app, [*RUN[:-1], "--json"])
    quiet = CliRunner().invoke(app, [*RUN, "--json"])
    assert loud.exit_code == quiet.exit_code == 0
    a, b = json.loads(loud.stdout), json.loads(quiet.stdout)
    assert a == b
    assert b["utilities"]["buyer"] == 0.6925  # full precision, not the line's 0.69


def test_quiet_other_domains_print_their_own_sentence() -> None:
    res = CliRunner().invoke(app, ["run", "games/prisoners-dilemma", "--agents",
                                   "rational,rational", "-q"])
    assert res.exit_code == 0, res.output
    line = _one_outcome_line(res.stdout)
    assert line.startswith("Game completed: Alice played defect, Bob played defect")
    res = CliRunner().invoke(app, ["run", "task-exchange/cooperative", "--agents",
                                   "selfish,selfish", "-q"])
    assert _one_outcome_line(res.stdout) == ("Agreement after 10 turns; utilities Alice "
                                             "0.89, Bob 0.87.")


def test_quiet_line_of_a_no_deal_says_the_bound_in_words() -> None:
    summary = {"status": "no_deal", "reason": "bound_hit", "detail": "max_rounds",
               "rounds": 3, "record": {"utilities": {"buyer": 0.4, "seller": 0.35}}}
    assert quiet_line(summary) == ("No deal in round 3 (bound_hit): the round cap was "
                                   "reached; utilities buyer 0.40, seller 0.35.")


def test_quiet_help_says_what_quiet_prints() -> None:
    def words(*args: str) -> str:
        return " ".join(CliRunner().invoke(app, [*args, "--help"]).stdout.split())

    assert "Print only the outcome, in one line (no transcript, tables or notes)" in words(
        "run")
    assert "No progress bar or summary: only errors, on stderr" in words("bench")
    assert "No progress bar, transcript or summary" not in words("run")


def test_quiet_with_save_keeps_stdout_to_the_outcome(tmp_path: Path) -> None:
    """The 'stored as' note goes to stderr, so a script reading stdout gets one line."""
    res = _piped(*RUN, "--save", str(tmp_path / "q.db"))
    assert res.returncode == 0, res.stderr
    _one_outcome_line(res.stdout)
    assert "stored as" in res.stderr and "stored as" not in res.stdout
