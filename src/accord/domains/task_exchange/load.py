"""Load task universes and scenarios from the YAML data files, with precise errors.

Built-in data lives in ``data/`` next to this module: ``tasks.yaml`` (the universe) and
``scenarios/<name>.yaml``. Every error names the file, the key path and the problem.
Files are read by :mod:`accord.core.safeload` (regular files only, so ``tasks:
/dev/zero`` is refused before a byte is read; size, depth, alias and number budgets);
unknown keys are errors with a close-match suggestion.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from accord.core.names import unknown_name
from accord.core.safeload import (
    LoadError,
    check_name,
    clip,
    is_file,
    load_yaml,
    short,
    unknown_keys,
)
from accord.domains.task_exchange.masks import format_mask, parse_mask
from accord.domains.task_exchange.scenario import (
    AgentProfile,
    AtomicTask,
    MainTask,
    Scenario,
    ScenarioError,
    TaskUniverse,
    normalise_scores,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
"""Directory of the built-in data files."""

SCENARIO_DIR = DATA_DIR / "scenarios"

#: keys of a tasks (universe) file, of its atomic and main tasks, of a scenario and agent
TASKS_KEYS = ("name", "description", "atomic_tasks", "main_tasks", "composites")
ATOMIC_KEYS = ("bit", "tool", "call", "label")
MAIN_KEYS = ("id", "mask", "request")
SCENARIO_KEYS = ("name", "title", "description", "tasks", "agents", "turn_limit")
AGENT_KEYS = ("role", "main_task", "preference", "raw_scores")


def _fail(path: Path | str, key: str, problem: str) -> ScenarioError:
    return ScenarioError(f"{clip(str(path))}: {clip(key)}: {clip(problem, 800)}")


def _known(data: Mapping[Any, Any], allowed: tuple[str, ...], path: Path, where: str) -> None:
    bad = unknown_keys(data, allowed)
    if bad is not None:
        raise _fail(path, f"{where}{bad[0]}", bad[1])


def _read_yaml(path: Path) -> Mapping[str, Any]:
    try:
        data = load_yaml(path).data
    except LoadError as exc:
        line = f"line {exc.line}" if exc.line else ""
        where = (exc.key_text() + (f" ({line})" if line else "") if exc.key
                 else line or exc.key_text("YAML"))
        raise ScenarioError(f"{exc.source}: {where}: {exc.problem}") from None
    if not isinstance(data, Mapping):
        raise _fail(path, "<top>", f"expected a mapping, got {type(data).__name__}")
    return data


def _get(data: Mapping[str, Any], key: str, typ: type | tuple[type, ...], path: Path,
         where: str) -> Any:
    if key not in data:
        raise _fail(path, f"{where}{key}", "missing")
    val = data[key]
    if not isinstance(val, typ) or isinstance(val, bool):
        name = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise _fail(path, f"{where}{key}", f"expected {name}, got {type(val).__name__} "
                                           f"{short(val)}")
    return val


def _mask(text: Any, n: int, path: Path, key: str) -> int:
    if not isinstance(text, str):
        raise _fail(path, key, f"mask must be a quoted bit string like {'0' * n!r}, "
                               f"got {short(text)}")
    try:
        return parse_mask(text, n)
    except ValueError as exc:
        raise _fail(path, key, str(exc)) from None


def _entries(data: Mapping[str, Any], key: str, allowed: tuple[str, ...], path: Path
             ) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """``(i, "key[i].", item)`` for each item of the list at ``key``: each must be a mapping
    with only ``allowed`` keys."""
    for i, item in enumerate(_get(data, key, list, path, "")):
        if not isinstance(item, Mapping):
            raise _fail(path, f"{key}[{i}]", "expected a mapping")
        w = f"{key}[{i}]."
        _known(item, allowed, path, w)
        yield i, w, item


def _task_list(data: Mapping[str, Any], path: Path
               ) -> tuple[str, tuple[AtomicTask, ...], tuple[MainTask, ...]]:
    _known(data, TASKS_KEYS, path, "")
    atomic = []
    for i, w, item in _entries(data, "atomic_tasks", ATOMIC_KEYS, path):
        bit = _get(item, "bit", int, path, w)
        if bit != i:
            raise _fail(path, f"{w}bit", f"is {bit}, expected {i} (list atomic tasks in bit order)")
        atomic.append(AtomicTask(bit, _get(item, "tool", str, path, w),
                                 _get(item, "call", str, path, w),
                                 _get(item, "label", str, path, w)))
    n = len(atomic)
    if not 1 <= n <= 12:
        raise _fail(path, "atomic_tasks", f"need 1 to 12 atomic tasks, got {n}")
    mains = []
    for _, w, item in _entries(data, "main_tasks", MAIN_KEYS, path):
        mask = _mask(item.get("mask"), n, path, f"{w}mask")
        if mask == 0:
            raise _fail(path, f"{w}mask", "a main task needs at least one atomic task")
        mains.append(MainTask(_get(item, "id", str, path, w), mask,
                              _get(item, "request", str, path, w)))
    return str(data.get("name", path.stem)), tuple(atomic), tuple(mains)


def load_task_list(path: str | Path) -> tuple[str, tuple[AtomicTask, ...], tuple[MainTask, ...]]:
    """Name, atomic tasks and main tasks of a tasks file (``composites`` not needed).

    This is the input of the scenario generators, which write the composite descriptions.
    """
    path = Path(path)
    return _task_list(_read_yaml(path), path)


def load_universe(path: str | Path) -> TaskUniverse:
    """Load a task universe file (atomic tasks, main tasks, 2^n composite descriptions)."""
    path = Path(path)
    data = _read_yaml(path)
    name, atomic, mains = _task_list(data, path)
    n = len(atomic)
    comps = _get(data, "composites", Mapping, path, "")
    descriptions: list[str | None] = [None] * (1 << n)
    for key, text in comps.items():
        mask = _mask(key, n, path, f"composites[{key!r}]")
        if not isinstance(text, str) or not text.strip():
            raise _fail(path, f"composites[{key!r}]", "description must be a non-empty string")
        descriptions[mask] = text
    missing = [format_mask(m, n) for m, d in enumerate(descriptions) if d is None]
    if missing:
        shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise _fail(path, "composites", f"{len(missing)} of {1 << n} masks have no "
                    f"description: {shown}")
    try:
        return TaskUniverse(name, atomic, mains,
                            tuple(d for d in descriptions if d is not None))
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


def _score(val: Any, path: Path, key: str) -> Fraction:
    if isinstance(val, bool) or not isinstance(val, int | float):
        raise _fail(path, key, f"raw score must be a number in [0, 100], got {short(val)}")
    if not 0 <= val <= 100:
        raise _fail(path, key, f"raw score {val} outside [0, 100]")
    return Fraction(str(val)) if isinstance(val, float) else Fraction(val)


def load_scenario(path: str | Path) -> Scenario:
    """Load a scenario file; its ``tasks`` key names the universe file (relative to it)."""
    path = Path(path)
    data = _read_yaml(path)
    _known(data, SCENARIO_KEYS, path, "")
    tasks_ref = _get(data, "tasks", str, path, "")
    try:
        tasks_path = str((path.parent / tasks_ref).resolve())
    except (OSError, RuntimeError, ValueError) as exc:
        raise _fail(path, "tasks", f"cannot resolve the path {short(tasks_ref)}: {exc}") from None
    try:
        universe = _load_universe_cached(tasks_path)
    except ScenarioError as exc:  # name the scenario and key that pointed at the file
        raise _fail(path, "tasks", str(exc)) from None
    n = universe.n
    agents = []
    for _, w, item in _entries(data, "agents", AGENT_KEYS, path):
        role = _get(item, "role", str, path, w)
        main = _get(item, "main_task", str, path, w)
        if main not in {t.id for t in universe.main_tasks}:
            known = clip(", ".join(t.id for t in universe.main_tasks))
            raise _fail(path, f"{w}main_task", f"unknown main task {short(main)}; known: {known}")
        scores_raw = _get(item, "raw_scores", Mapping, path, w)
        raw: list[Fraction | None] = [None] * (1 << n)
        for key, val in scores_raw.items():
            mask = _mask(key, n, path, f"{w}raw_scores[{key!r}]")
            raw[mask] = _score(val, path, f"{w}raw_scores[{key!r}]")
        missing = [format_mask(m, n) for m, r in enumerate(raw) if r is None]
        if missing:
            shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
            raise _fail(path, f"{w}raw_scores", f"no score for {len(missing)} masks: {shown}")
        scores = tuple(r for r in raw if r is not None)
        agents.append(AgentProfile(role, main, str(item.get("preference", "")), scores,
                                   normalise_scores(scores)))
    turn_limit = data.get("turn_limit", 10)
    if isinstance(turn_limit, bool) or not isinstance(turn_limit, int):
        raise _fail(path, "turn_limit", f"expected an integer, got {short(turn_limit)}")
    try:
        return Scenario(str(data.get("name", path.stem)), str(data.get("title", "")), universe,
                        tuple(agents), turn_limit)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


@lru_cache(maxsize=16)
def _load_universe_cached(path: str) -> TaskUniverse:
    return load_universe(path)


def builtin_scenarios() -> list[str]:
    """Names of the built-in scenarios (files in ``data/scenarios``)."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


@lru_cache(maxsize=32)
def _load_cached(path: str) -> Scenario:
    return load_scenario(path)


def get_scenario(name: str) -> Scenario:
    """A built-in scenario by name, or a scenario file given by path (cached, immutable)."""
    too_long = check_name(name, "task-exchange scenario", 4096)
    if too_long:
        raise ScenarioError(too_long)
    builtin = SCENARIO_DIR / f"{name}.yaml"
    if is_file(builtin):
        return _load_cached(str(builtin))
    candidate = Path(name)
    if candidate.suffix in {".yaml", ".yml"} and is_file(candidate):
        return _load_cached(str(candidate.resolve()))
    raise ScenarioError(unknown_name("task-exchange scenario", name, builtin_scenarios(),
                                     hint="(or give a .yaml path)"))


__all__ = [
    "DATA_DIR",
    "SCENARIO_DIR",
    "builtin_scenarios",
    "get_scenario",
    "load_scenario",
    "load_task_list",
    "load_universe",
]
