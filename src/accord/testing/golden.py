"""Golden-file checks for prompt text (issue 14): the exact text a model gets, pinned in files.

:func:`check_golden` compares a text with a file under a test's ``golden/`` folder. With
the environment variable ``ACCORD_UPDATE_GOLDEN=1`` it (re)writes the file instead and
passes, so a deliberate prompt change is one command plus a reviewed diff (see
CONTRIBUTING.md). A missing file is a failure that says how to create it.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

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


#: machine-readable blocks that existed only for the stub policies: no real endpoint may
#: receive one (issue 14); the golden tests check every captured request against them
STUB_ONLY_BLOCKS: tuple[str, ...] = (
    "<STATE>", "<UTILITY>", "<TX_SETUP>", "<TX_STATE>", "<TASK_STATE>", "<DOND>", "<GAME>",
    "<GAME_STATE>", "Machine-readable", "machine-readable", "STATE block")


def render_chat(messages: Sequence[Mapping[str, Any]]) -> str:
    """A chat request's messages as the text a golden file pins (role headers, contents)."""
    return "".join(f"=== {m['role']} ===\n{m['content']}\n" for m in messages)


def assert_no_stub_blocks(requests: Iterable[Any],
                          blocks: Sequence[str] = STUB_ONLY_BLOCKS) -> None:
    """No captured request (``.messages``, ``.model``) carries a stub-only block."""
    for r in requests:
        body = json.dumps(r.messages, ensure_ascii=False)
        found = [b for b in blocks if b in body]
        if found:
            raise AssertionError(f"request to {r.model!r} carries stub-only {found}: "
                                 f"{body[:300]}")


__all__ = ["STUB_ONLY_BLOCKS", "UPDATE_ENV", "assert_no_stub_blocks", "check_golden",
           "render_chat"]
