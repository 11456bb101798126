"""The shipped golden-file helpers fail when they should (no vacuous pass)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from accord.testing.golden import assert_no_stub_blocks, check_golden, render_chat


def test_render_and_compare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = render_chat([{"role": "system", "content": "rules"}, {"role": "user", "content": "go"}])
    assert text == "=== system ===\nrules\n=== user ===\ngo\n"
    path = tmp_path / "g.txt"
    with pytest.raises(AssertionError, match="missing"):
        check_golden(path, text)
    monkeypatch.setenv("ACCORD_UPDATE_GOLDEN", "1")
    check_golden(path, text)
    monkeypatch.delenv("ACCORD_UPDATE_GOLDEN")
    check_golden(path, text)
    with pytest.raises(AssertionError, match="differs"):
        check_golden(path, text + "more")


def test_a_stub_only_block_is_caught() -> None:
    clean = SimpleNamespace(model="m", messages=[{"role": "user", "content": "an offer"}])
    assert_no_stub_blocks([clean])
    dirty = SimpleNamespace(model="m", messages=[{"role": "user", "content": "<DOND>{}</DOND>"}])
    with pytest.raises(AssertionError, match="stub-only"):
        assert_no_stub_blocks([clean, dirty])
