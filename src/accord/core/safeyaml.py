"""YAML under budgets: depth and alias counts while composing, cycles and alias expansion
refused in time linear in the node graph, number literals checked, key lines recorded.

Part of :mod:`accord.core.safeload` (use it through that module).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from accord.core.loadlimits import (
    MAX_LITERAL,
    SIZE_ENV,
    Document,
    KeyPath,
    Limits,
    LoadError,
    check_data,
    clip,
    short,
)


class _Loader(yaml.SafeLoader):
    """SafeLoader that counts depth and aliases while composing and checks literals."""

    def __init__(self, text: str, source: str, limits: Limits) -> None:
        super().__init__(text)
        self.source, self.limits = source, limits
        self.depth = 0
        self.aliases = 0

    def _mark_line(self) -> int | None:
        event = self.peek_event()
        mark = getattr(event, "start_mark", None)
        return None if mark is None else mark.line + 1

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > self.limits.max_aliases:
                raise LoadError(self.source, f"more than {self.limits.max_aliases} alias uses "
                                f"(*name); write the data out instead", line=self._mark_line())
            return super().compose_node(parent, index)
        if self.depth >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} levels",
                            line=self._mark_line())
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        # the scanner re-checks every open flow level per token: refuse depth here, first
        if self.flow_level >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} "
                            "levels", line=self.line + 1)
        super().fetch_flow_collection_start(token_class)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} "
                            "levels", line=self.line + 1)
        return super().add_indent(column)

    def _literal(self, node: ScalarNode) -> None:
        if len(str(node.value)) > MAX_LITERAL:
            raise LoadError(self.source, f"number literal of {len(str(node.value))} "
                            f"characters is out of range: {short(node.value)}",
                            line=node.start_mark.line + 1)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        self._literal(node)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: ScalarNode) -> float:
        self._literal(node)
        return super().construct_yaml_float(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_graph(root: Node, source: str, limits: Limits) -> None:
    """Refuse cycles and alias expansion beyond budget, in time linear in the node graph."""
    size: dict[int, int] = {}
    gray: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    distinct = 0
    cap = limits.max_alias_nodes
    while stack:
        node, leaving = stack.pop()
        nid = id(node)
        if leaving:
            gray.discard(nid)
            size[nid] = min(1 + sum(size[id(c)] for c in _children(node)), 1 << 62)
            continue
        if nid in size:
            continue
        if nid in gray:
            raise LoadError(source, "cyclic alias: an anchor (&name) is used inside itself",
                            line=node.start_mark.line + 1)
        gray.add(nid)
        distinct += 1
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    added = size[id(root)] - distinct
    if added > cap:
        raise LoadError(source, f"aliases expand to {added:,} more nodes than are written, "
                        f"more than the budget of {cap:,}; write the data out instead")


def _key_lines(root: Node, source: str) -> dict[KeyPath, int]:
    """Line of every key path; each node is entered once (aliases are not re-walked)."""
    out: dict[KeyPath, int] = {}
    seen: set[int] = set()
    stack: list[tuple[Node, KeyPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        out.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            keys: set[str] = set()
            for knode, vnode in node.value:
                key = str(knode.value) if isinstance(knode, ScalarNode) else "?"
                if key == "<<" and knode.tag == "tag:yaml.org,2002:merge":
                    continue  # merged keys: positions are those of the merged mapping
                sub = (*path, key)
                if key in keys and isinstance(knode, ScalarNode):
                    raise LoadError(source, "duplicate key (the second would replace the "
                                    "first)", sub, knode.start_mark.line + 1)
                keys.add(key)
                out[sub] = knode.start_mark.line + 1
                stack.append((vnode, sub))
        elif isinstance(node, SequenceNode):
            stack.extend((item, (*path, i)) for i, item in enumerate(node.value))
    return out


def _yaml_problem(exc: yaml.YAMLError) -> tuple[str, int | None]:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    return f"invalid YAML: {clip(text)}", line


def parse_yaml(text: str, source: str, limits: Limits | None = None) -> Document:
    """Parse one YAML document under the budgets; data, key lines, or a LoadError."""
    lim = limits or Limits.default()
    if len(text) > lim.max_yaml_bytes:
        raise LoadError(source, f"YAML text is {len(text):,} characters, more than the "
                                f"limit of {lim.max_yaml_bytes:,}; set {SIZE_ENV} to raise it")
    try:
        loader = _Loader(text, source, lim)  # the reader rejects control characters here
    except yaml.reader.ReaderError as exc:
        ch = exc.character
        code = ch if isinstance(ch, int) else ord(str(ch)[:1] or "?")
        raise LoadError(source, f"invalid YAML: character U+{code:04X} is not allowed "
                                "(control characters must be escaped in a quoted string)",
                        line=text.count("\n", 0, exc.position) + 1) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None)
        _check_graph(node, source, lim)
        lines = _key_lines(node, source)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        problem, line = _yaml_problem(exc)
        raise LoadError(source, problem, line=line) from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an int past str limits
        if isinstance(exc, LoadError):
            raise
        raise LoadError(source, f"invalid YAML value: {clip(str(exc))}") from None
    except RecursionError:
        raise LoadError(source, f"nesting deeper than {lim.max_depth} levels") from None
    finally:
        loader.dispose()
    doc = Document(data, lines)
    check_data(doc, source, lim)
    return doc
