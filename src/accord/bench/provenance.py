"""Where a run came from: accord's version, its git commit and the host (best effort)."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path
from typing import Any

import accord


def git_commit(directory: str | Path) -> str | None:
    """The commit checked out in ``directory`` (``+dirty`` if modified), or ``None``.

    ``None`` outside a git work tree, without git, or on any error: provenance is
    recorded when it can be, and never stops a run.
    """
    try:
        head = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=5, check=False)
        if head.returncode != 0:
            return None
        commit = head.stdout.strip()
        dirty = subprocess.run(["git", "-C", str(directory), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=5, check=False)
        return commit + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(cwd: str | Path = ".") -> dict[str, Any]:
    """accord's version, the commit of accord's source tree and of ``cwd``, the host."""
    src = Path(accord.__file__).resolve().parent
    return {
        "accord_version": accord.__version__,
        "git_commit": git_commit(src),
        "cwd_commit": git_commit(cwd),
        "host": socket.gethostname(),
    }
