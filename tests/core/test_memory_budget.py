"""A memory budget on whole-space arrays that a raised outcome cap does not lift (issue 24).

Runs with ``--max-outcomes`` raised by hand passed 1.5 GB. The scenario is refused at
load time, by an estimate, before anything is allocated; the CLI run happens in a child
whose address space is capped (so old code fails instead of taking the machine) and
whose peak RSS must stay under 500 MB.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from accord.core.loadlimits import (
    MAX_MEMORY_BYTES,
    MEMORY_ENV,
    memory_budget,
    outcome_memory_problem,
    outcome_space_bytes,
)
from accord.domains.bargaining.load import ScenarioError, parse_text
from accord.testing.memory import accord_argv, run_capped

SRC = str(Path(__file__).resolve().parents[2] / "src")
ADDRESS_CAP = 1536 * 1024 * 1024


def scenario_text(values: int, issues: int) -> str:
    """Two parties with opposed linear utilities over ``issues`` issues of ``values`` each."""
    names = [f"i{k}" for k in range(issues)]
    lines = ["name: big", "issues:"]
    lines += [f"  {n}: {list(range(values))}" for n in names]
    lines.append("parties:")
    for party, up in (("a", True), ("b", False)):
        lines += [f"  {party}:", "    batna: 0.3", "    utility:", "      type: linear_additive",
                  "      weights: {" + ", ".join(f"{n}: 1" for n in names) + "}",
                  "      values:"]
        for n in names:
            vals = ", ".join(f"{x}: {x if up else values - 1 - x}" for x in range(values))
            lines.append(f"        {n}: {{{vals}}}")
    return "\n".join(lines) + "\n"


def test_the_estimate_and_the_budget() -> None:
    assert outcome_space_bytes(1_000, 4, 2) == 1_000 * (8 * 4 * 3 + 48)
    assert memory_budget({}) == MAX_MEMORY_BYTES == 2**30
    assert memory_budget({MEMORY_ENV: "4096"}) == 4 * 2**30
    assert memory_budget({MEMORY_ENV: "lots"}) == MAX_MEMORY_BYTES
    assert outcome_memory_problem(10**6, 6, 2, env={}) is None  # the default cap fits
    msg = outcome_memory_problem(25**5, 5, 2, env={})
    assert msg is not None
    assert "9,765,625 outcomes x 5 issues x 2 parties need about 1.5 GiB" in msg
    assert "budget of 1.0 GiB" in msg and MEMORY_ENV in msg
    assert outcome_memory_problem(25**5, 5, 2, env={MEMORY_ENV: "4096"}) is None


def test_a_raised_outcome_cap_does_not_lift_the_memory_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    with pytest.raises(ScenarioError, match=r"need about 1\.5 GiB of memory"):
        parse_text(scenario_text(25, 5), "big.yaml", max_outcomes=10**8)
    # the scenario itself is fine once the budget is raised on purpose
    monkeypatch.setenv(MEMORY_ENV, "4096")
    assert parse_text(scenario_text(25, 5), "big.yaml", max_outcomes=10**8).space.size == 25**5


def test_the_cli_refuses_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(scenario_text(25, 5))
    env = {k: v for k, v in os.environ.items() if k != MEMORY_ENV}
    env["PYTHONPATH"] = SRC
    run = run_capped(accord_argv("run", str(path), "--agents", "boulware,conceder",
                                 "--max-outcomes", "100000000", "--json"),
                     env=env, cap_bytes=ADDRESS_CAP)
    assert run.returncode == 2, run.stderr[-2000:]
    assert "need about 1.5 GiB of memory" in run.stderr and "Traceback" not in run.stderr
    assert run.peak_kb < 500 * 1024
