"""Issue 24, item 5: every command, given hostile files, options, damaged stores and
special output paths, ends with exit 0 or 2 (1 only where 1 is the command's verdict) and
no traceback; under ``--json`` its stdout is one JSON document.

CI runs a small count per class (``ACCORD_CLI_FUZZ_EXAMPLES``, default 6 per class, fixed
seeds); ``benchmarks/fuzz.py --cli N`` runs the same generators at scale.
"""

from __future__ import annotations

import os
from pathlib import Path

import clifuzz
import pytest

EXAMPLES = int(os.environ.get("ACCORD_CLI_FUZZ_EXAMPLES", "6"))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clifuzz.build_template(tmp_path_factory.mktemp("template"))


@pytest.mark.parametrize("kind", sorted(clifuzz.GENERATORS))
def test_hostile_command_lines(kind: str, template: Path, tmp_path: Path) -> None:
    failures = []
    for i, case in enumerate(clifuzz.cases(EXAMPLES, seed=24, kinds=(kind,))):
        out = clifuzz.run_case(case, tmp_path / "case", template, seed=i)
        if out.status != "ok":
            failures.append((out.how, " ".join(out.argv)[:300], out.detail))
    assert not failures, failures


@pytest.mark.parametrize("variant", clifuzz.STORE_VARIANTS)
def test_every_store_variant_on_the_store_readers(variant: str, template: Path,
                                                   tmp_path: Path) -> None:
    """Each damaged or foreign store kind against ``results --json`` and ``store check``."""
    for argv in (("results", "{d}/store.db", "--json"),
                 ("store", "check", "{d}/store.db", "--json")):
        case = clifuzz.CliCase(argv, (), variant, clifuzz.VERDICT,
                               (("store.db", variant),))
        out = clifuzz.run_case(case, tmp_path / "case", template)
        assert out.status == "ok", (variant, argv, out.detail)


@pytest.mark.parametrize("label", sorted(clifuzz.OUT_PATHS))
def test_every_special_out_path_on_run(label: str, template: Path, tmp_path: Path) -> None:
    if label == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    argv = ("run", "bargaining/split", "--agents", "boulware,conceder", "--json", "--out",
            clifuzz.OUT_PATHS[label])
    out = clifuzz.run_case(clifuzz.CliCase(argv, (("afile", b"x"),), label), tmp_path / "c",
                           template)
    assert out.status == "ok" and out.code == 2, (label, out.code, out.detail)
