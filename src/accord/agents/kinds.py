"""One registry type for the agent kinds of every domain: :class:`AgentRegistry`.

A registry maps a kind (the first word of an agent spec: ``boulware``, ``llm``, ``share``)
to a factory ``(spec, ctx) -> agent``, where ``ctx`` is the domain's typed context (what a
factory may use to build one agent for one role). Each kind may carry a ``check`` that
validates a spec without building anything (no LLM client, no network), which
``accord bench`` runs for every line-up before the first episode.

Kinds come from three places, in this order: the domain's own registrations; modules the
registry imports the first time an unknown kind is asked for (optional extras such as the
LLM agents); and installed packages, through the ``accord.agents`` entry-point group, with
entry names ``<registry>.<kind>`` — e.g. in a package's ``pyproject.toml``::

    [project.entry-points."accord.agents"]
    "bargaining.best-or-batna" = "my_package.agents:make_best_or_batna"
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.names import unknown_name
from accord.protocols.engine import Bounds

#: entry-point group of agent kinds from other packages
ENTRY_POINT_GROUP = "accord.agents"

C = TypeVar("C")
T = TypeVar("T")

SpecCheck = Callable[[AgentSpec], None]
"""Checks a spec without building anything (raises ``ValueError`` naming the problem)."""


Randomness = bool | Callable[[AgentSpec], "bool | None"] | None
"""Whether a kind's agents are stochastic: ``True`` (their moves depend on the episode's
seed, e.g. ``random``), ``False`` (the same moves for every seed, e.g. ``boulware``),
``None`` (not declared, or it varies: a person), or a function of the spec (an LLM at
temperature 0 is not declared stochastic)."""


@dataclass(frozen=True)
class Kind(Generic[C, T]):
    """One registered kind: its factory, its optional spec check and whether its agents
    are stochastic (see :data:`Randomness`)."""

    factory: Callable[[AgentSpec, C], T]
    check: SpecCheck | None = None
    stochastic: Randomness = None


@dataclass(frozen=True)
class AgentSettings:
    """The run's side-effect settings an agent factory may need, in a domain's typed context.

    ``llm`` holds LLM settings for :func:`~accord.agents.llm_support.runtime_for` (cache
    path and mode, endpoints), ``episode_id`` scopes LLM cache entries, ``max_retries`` is
    the episode's retry budget (the engine's :class:`~accord.protocols.engine.Bounds`
    default unless the params say otherwise) and ``seat`` is where a ``human`` agent's
    person sits (terminal or browser; ``None`` when nobody does).
    """

    llm: Mapping[str, Any] | None = None
    episode_id: str = ""
    max_retries: int = Bounds().max_retries
    seat: Any = None

    def as_mapping(self) -> dict[str, Any]:
        """The settings as the mapping older factories and :func:`seat_from` read."""
        return {"llm": self.llm, "episode_id": self.episode_id,
                "max_retries": self.max_retries, "seat": self.seat}

    @classmethod
    def of(cls, ctx: Mapping[str, Any] | None) -> AgentSettings:
        """The settings from such a mapping (missing keys take the defaults; others are
        ignored)."""
        c = ctx or {}
        return cls(c.get("llm"), str(c.get("episode_id") or ""),
                   int(c.get("max_retries", cls.max_retries)), c.get("seat"))


class AgentRegistry(Generic[C, T]):
    """The agent kinds of one domain (or of one role, e.g. bargaining mediators).

    ``name`` prefixes the entry points it reads (``<name>.<kind>``); ``what`` names a kind
    in errors ("agent", "mediator") and ``label`` an unknown one (default
    ``"<name> <what> kind"``); ``lazy`` lists modules imported (if importable) the first
    time a kind is missing. Supports ``kind in registry``, iteration over the kinds
    and ``registry[kind] = factory`` for code written against plain dicts.
    """

    def __init__(self, name: str, what: str = "agent", lazy: Sequence[str] = (),
                 label: str | None = None) -> None:
        self.name, self.what, self.lazy = name, what, tuple(lazy)
        self.label = label or f"{name} {what} kind"
        self._kinds: dict[str, Kind[C, T]] = {}
        self._loaded = self._loading = False
        self._load_lock = threading.RLock()

    def register(self, kind: str, factory: Callable[[AgentSpec, C], T], *,
                 check: SpecCheck | None = None, stochastic: Randomness = None) -> None:
        """Add (or replace) kind ``kind``; ``stochastic`` declares whether its agents'
        moves depend on the seed (``accord bench`` warns when a cell's agents are all
        declared deterministic and it runs several seeds)."""
        self._kinds[kind] = Kind(factory, check, stochastic)

    def stochastic(self, spec: AgentSpec) -> bool | None:
        """Whether agents of ``spec`` are stochastic: ``True``, ``False``, or ``None`` when
        the kind is unknown or does not say."""
        entry = self.get(spec.kind)
        if entry is None:
            return None
        declared = entry.stochastic
        return declared(spec) if callable(declared) else declared

    def __setitem__(self, kind: str, factory: Callable[[AgentSpec, C], T]) -> None:
        self.register(kind, factory)

    def unregister(self, kind: str) -> None:
        """Remove kind ``kind`` (``KeyError`` if it is not registered)."""
        del self._kinds[kind]

    def __contains__(self, kind: object) -> bool:
        if kind not in self._kinds and isinstance(kind, str):
            self.load()
        return kind in self._kinds

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._kinds))

    def __len__(self) -> int:
        self.load()
        return len(self._kinds)

    def kinds(self) -> list[str]:
        """Every kind, optional and installed ones included, in registration order."""
        return list(self)

    def get(self, kind: str) -> Kind[C, T] | None:
        """The registered kind, loading optional and installed kinds when missing."""
        if kind not in self._kinds:
            self.load()
        return self._kinds.get(kind)

    def _require(self, spec: AgentSpec) -> Kind[C, T]:
        entry = self.get(spec.kind)
        if entry is None:
            raise AgentSpecError(unknown_name(self.label, spec.kind, self._kinds))
        return entry

    def check(self, spec: AgentSpec) -> None:
        """Validate ``spec`` without building an agent (unknown kind, bad options)."""
        entry = self._require(spec)
        if entry.check is not None:
            try:
                entry.check(spec)
            except (TypeError, ValueError) as exc:
                if isinstance(exc, AgentSpecError):
                    raise
                raise AgentSpecError(f"bad options for {self.what} {str(spec)!r}: {exc}"
                                     ) from None

    def build(self, spec: AgentSpec, ctx: C) -> T:
        """An agent of ``spec``'s kind; bad options become an :class:`AgentSpecError`."""
        entry = self._require(spec)
        try:
            return entry.factory(spec, ctx)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, AgentSpecError):
                raise
            raise AgentSpecError(f"bad options for {self.what} {str(spec)!r}: {exc}") from None

    def load(self) -> None:
        """Import the lazy modules and the installed kinds once (idempotent).

        Another thread asking meanwhile waits for the kinds instead of seeing none; a lazy
        module importing this registry again (same thread) does not recurse; an entry
        point that fails to load fails every lookup that needs it, not only the first.
        """
        if self._loaded:
            return
        with self._load_lock:
            if self._loaded or self._loading:
                return
            self._loading = True
            try:
                self._load()
            finally:
                self._loading = False
            self._loaded = True

    def _load(self) -> None:
        for module in self.lazy:
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            prefix, _, kind = ep.name.rpartition(".")
            if prefix != self.name or not kind or kind in self._kinds:
                continue
            try:
                factory = ep.load()
            except Exception as exc:  # a third-party module can fail in any way
                raise AgentSpecError(f"{self.what} kind {kind!r} (entry point {ep.value!r}) "
                                     f"failed to load: {type(exc).__name__}: {exc}") from exc
            self.register(kind, factory)


__all__ = ["ENTRY_POINT_GROUP", "AgentRegistry", "AgentSettings", "Kind", "SpecCheck"]
