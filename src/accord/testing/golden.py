"""Golden-file checks for prompt text (issue 14): the exact text a model gets, pinned in files.

:func:`check_golden` compares a text with a file under a test's ``golden/`` folder. With
the environment variable ``ACCORD_UPDATE_GOLDEN=1`` it (re)writes the file instead and
passes, so a deliberate prompt change is one command plus a reviewed diff (see
CONTRIBUTING.md). A missing file is a failure that says how to create it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

UPDATE_ENV = "ACCORD_UPDATE_GOLDEN"


def check_golden(path: Path, text: str) -> None:
    """Assert that ``path`` holds exactly ``text`` (rewrite it when ``ACCORD_UPDATE_GOLDEN=1``)."""
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        raise AssertionError(f"golden file {path} is missing; create it with "
                             f"{UPDATE_ENV}=1 and review the diff")
    want = path.read_text(encoding="utf-8")
    if want != text:
        diff = "".join(difflib.unified_diff(want.splitlines(keepends=True),
                                            text.splitlines(keepends=True),
                                            str(path), "rendered", n=2))
        raise AssertionError(f"prompt text differs from {path} (if the change is intended, "
                             f"rerun with {UPDATE_ENV}=1 and review the diff):\n{diff[:6000]}")


__all__ = ["UPDATE_ENV", "check_golden"]
