"""Golden-file checks: the exact text a component produces, pinned in a file.

``check_golden(path, text)`` fails with a unified diff when ``text`` differs from the
file; with ``ACCORD_UPDATE_GOLDEN=1`` in the environment it (re)writes the file instead,
so a legitimate change is one command away and shows up in review as a diff of the
golden file. Tests import it as ``from golden import check_golden`` (``tests/`` is put on
``sys.path`` by ``tests/conftest.py``).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

UPDATE_ENV = "ACCORD_UPDATE_GOLDEN"


def check_golden(path: Path, text: str) -> None:
    """Compare ``text`` with the golden file ``path`` (or write it when updating)."""
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; create it with {UPDATE_ENV}=1")
    want = path.read_text(encoding="utf-8")
    if text != want:
        diff = "".join(difflib.unified_diff(
            want.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{path.name} (golden)", tofile=f"{path.name} (now)", n=2))
        pytest.fail(f"the text differs from {path}; if the change is intended, rerun with "
                    f"{UPDATE_ENV}=1 and review the diff\n{diff[:6000]}")
