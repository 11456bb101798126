"""Experiment specs shipped with accord (``accord configs list|show|copy``).

Each ``*.yaml`` here is an ``accord bench`` spec; ``accord bench NAME`` (``demo``,
``games_tables5_8`` ...) resolves a shipped name when no file of that name exists.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from accord.core.names import unknown_name
from accord.core.safeload import exists


def _folder() -> Traversable:
    return resources.files("accord.configs")


def names() -> list[str]:
    """Names of the shipped specs (file names without ``.yaml``), sorted."""
    return sorted(p.name[:-5] for p in _folder().iterdir()
                  if p.is_file() and p.name.endswith(".yaml"))


def text(name: str) -> str:
    """The YAML text of a shipped spec; ``KeyError`` with a close match if unknown."""
    key = name[:-5] if name.endswith(".yaml") else name
    if key not in names():
        raise KeyError(unknown_name("shipped config", name, names()))
    return _folder().joinpath(f"{key}.yaml").read_text(encoding="utf-8")


def description(name: str) -> str:
    """The first paragraph of a shipped spec's leading comment (what it is for), or ``""``.

    The paragraph ends at an empty comment line, an indented line (an example command)
    or the first line that is not a comment.
    """
    parts: list[str] = []
    for line in text(name).splitlines():
        if not line.startswith("#"):
            break
        body = line[1:]
        if not body.strip() or body.startswith("   "):
            if parts:
                break
            continue
        parts.append(body.strip())
    return " ".join(parts)


def resolve(target: str | Path) -> Path:
    """``target`` as a file when it exists (or looks like a path), else the shipped spec of
    that name, as a real file path."""
    p = Path(target)
    if exists(p) or p.suffix not in ("", ".yaml") or len(p.parts) > 1:
        return p
    key = p.name[:-5] if p.name.endswith(".yaml") else p.name
    if key not in names():
        raise KeyError(unknown_name("config", str(target), names(),
                                    hint="(give a spec PATH.yaml or a shipped name; "
                                    "see `accord configs list`)"))
    with resources.as_file(_folder().joinpath(f"{key}.yaml")) as real:
        return Path(real)


__all__ = ["description", "names", "resolve", "text"]
