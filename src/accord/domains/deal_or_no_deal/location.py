"""Where the Deal-or-No-Deal files are found.

Precedence, first match wins:

1. an explicit path (``--data`` on the command line, the ``data`` episode
   parameter, or :class:`~accord.domains.base.RunContext` ``data``);
2. the environment variable ``ACCORD_DATA``;
3. the per-user default ``$XDG_DATA_HOME/accord`` (``~/.local/share/accord``).

A path may name a data file (``.../test.txt``), the folder holding the files
(``.../dealornodeal``) or a data root that contains a ``dealornodeal`` folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from accord.core.safeload import exists, is_file, short

ENV_VAR = "ACCORD_DATA"
"""Environment variable naming the data root (or the dealornodeal folder)."""

SUBDIR = "dealornodeal"
"""Folder name of this data set under a data root."""

SPLITS: tuple[str, ...] = ("test", "val")
"""Splits in the line format the loader reads."""


class DataNotFoundError(FileNotFoundError):
    """No data at the resolved location; the message says where it looked and what to do.

    ``file`` is the data file looked for and ``root`` the location it was resolved from,
    so a command with its own option for the path (``--human-data``) can name that option
    instead of ``--data``.
    """

    def __init__(self, message: str, *, file: Path | None = None,
                 root: Path | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.root = root


def default_root() -> Path:
    """The per-user data root used when neither a path nor ``ACCORD_DATA`` is given."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "accord"


def data_root(path: str | os.PathLike[str] | None = None) -> Path:
    """The configured location (explicit path, else ``ACCORD_DATA``, else the default)."""
    if path is not None and str(path):
        return Path(path).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return default_root()


def dataset_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder that holds (or will hold) ``test.txt`` and ``val.txt``."""
    root = data_root(path)
    if is_file(root):
        return root.parent
    if exists(root / "test.txt") or root.name == SUBDIR:
        return root
    return root / SUBDIR


def split_file(path: str | os.PathLike[str] | None = None, split: str = "test") -> Path:
    """The data file for ``split``; a path naming a file is returned as is.

    Raises :class:`DataNotFoundError` with a hint to ``accord dond download`` when absent.
    """
    root = data_root(path)
    if is_file(root):
        return root
    if split not in SPLITS:
        raise ValueError(f"unknown split {short(split)}; choose one of {', '.join(SPLITS)}")
    file = dataset_dir(path) / f"{split}.txt"
    if not is_file(file):
        raise DataNotFoundError(
            f"no Deal-or-No-Deal {split} split at {file} (looked at {root}; set --data or "
            f"{ENV_VAR}, or fetch it with `accord dond download --data {root}`)",
            file=file, root=root)
    return file
