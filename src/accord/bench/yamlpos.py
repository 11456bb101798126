"""YAML loading that remembers where each key is, so config errors can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


class ConfigError(ValueError):
    """A bench config that cannot be used: names the file, line, key and problem."""

    def __init__(self, source: str, key: str, problem: str, line: int | None = None) -> None:
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {key}: {problem}")
        self.source, self.key, self.problem, self.line = source, key, problem, line


def join_key(path: str, key: str | int) -> str:
    """The dotted / indexed path of a child: ``agents[1][0]``, ``params.max_rounds``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _walk(node: Node, path: str, out: dict[str, int], source: str) -> None:
    out.setdefault(path or "<root>", node.start_mark.line + 1)
    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for knode, vnode in node.value:
            key = str(knode.value) if isinstance(knode, ScalarNode) else "?"
            if key == "<<":  # merge key: positions of the merged mapping are approximate
                continue
            child = join_key(path, key)
            if key in seen:
                raise ConfigError(source, child, "duplicate key", knode.start_mark.line + 1)
            seen.add(key)
            out[child] = knode.start_mark.line + 1
            _walk(vnode, child, out, source)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, join_key(path, i), out, source)


def load_yaml(text: str, source: str) -> tuple[Any, dict[str, int]]:
    """Parse YAML text; return the data and a map from key path to 1-based line."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(source, "<yaml>", f"invalid YAML: {exc}", line) from None
    lines: dict[str, int] = {}
    if node is not None:
        _walk(node, "", lines, source)
    return data, lines


def read_yaml(path: str | Path) -> tuple[Any, dict[str, int]]:
    """Read and parse a YAML file, with key positions."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(p), "<file>", f"cannot read: {exc.strerror or exc}") from None
    return load_yaml(text, str(p))
