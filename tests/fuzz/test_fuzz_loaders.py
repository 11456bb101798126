"""Issue 12: every loader, fed hostile variants of the shipped files, ends in success or
its own error class - never a traceback, a hang or a memory blow-up.

CI runs a small example count per loader (``ACCORD_FUZZ_EXAMPLES``, default 10);
``benchmarks/fuzz.py --examples N`` runs the same strategies at scale and prints the
figures. Budgets per case: a hang guard of ``fuzzlib.HANG_SECONDS`` (an alarm, not a timing
assertion) and a traced peak of ``fuzzlib.MEMORY_BUDGET``.
"""

from __future__ import annotations

import os
from pathlib import Path

import fuzzlib
import pytest
from hypothesis import HealthCheck, given, settings

EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))


@pytest.mark.parametrize("name", sorted(fuzzlib.LOADERS))
def test_loader_survives_mutated_seeds(name: str, tmp_path: Path) -> None:
    loader = fuzzlib.LOADERS[name]

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=fuzzlib.mutated(loader))
    def check(case: fuzzlib.Case) -> None:
        out = fuzzlib.run_case(case, tmp_path / "case")
        assert out.status in ("ok", "refused"), (out.status, out.detail, case.how)

    check()


@pytest.mark.parametrize("name", sorted(fuzzlib.LOADERS))
def test_every_seed_loads_unchanged(name: str, tmp_path: Path) -> None:
    """The seeds themselves are valid: the budgets refuse nothing that ships."""
    loader = fuzzlib.LOADERS[name]
    for i, text in enumerate(loader.seed_texts()):
        out = fuzzlib.run_case(fuzzlib.Case(name, text.encode(), f"seed {i}"),
                               tmp_path / str(i), trace=False)
        assert out.status == "ok", (i, out.detail)
