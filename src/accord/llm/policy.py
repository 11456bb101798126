"""The policy interface of the in-process ``mock/<policy>`` provider (and the stub server).

A policy turns one chat request into one outcome: a :class:`Reply` (text, optional delay,
finish reason) or an :class:`HttpError` (status, headers such as ``Retry-After``).
Policies never sleep or touch sockets themselves; the caller carries out the delay.

Policies are found by name: :data:`POLICIES` maps a name to a factory and
:func:`register_policy` adds one. Packages provide policies through the
``accord.policies`` entry-point group (each entry names a module whose import registers
its policies: accord's own stub policies, a domain's rule-based party, a plug-in's), which
:func:`make_policy` loads the first time a name is not yet known. So this layer depends on
no domain and no test helper.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from typing import Any, ClassVar

#: entry-point group whose modules register policies when imported
ENTRY_POINT_GROUP = "accord.policies"


class PolicyError(ValueError):
    """The request cannot be answered by this policy (the server answers HTTP 400)."""


@dataclass(frozen=True)
class PolicyRequest:
    """One chat request as a policy sees it.

    ``messages`` are ``{"role", "content"}`` dicts (system first when present);
    ``index`` counts requests handled by the same server or mock backend from 0;
    ``conversation`` identifies the session (the ``X-Accord-Session`` header, else a
    hash of the first message).
    """

    messages: tuple[Mapping[str, str], ...]
    model: str
    params: Mapping[str, Any] = field(default_factory=dict)
    index: int = 0
    conversation: str = ""

    def last(self, role: str = "user") -> str:
        """Content of the last message with ``role`` ('' if none)."""
        for message in reversed(self.messages):
            if message.get("role") == role:
                return str(message.get("content", ""))
        return ""

    def system(self) -> str:
        """All system (or developer) message contents joined by blank lines."""
        return "\n\n".join(
            str(m.get("content", "")) for m in self.messages
            if m.get("role") in ("system", "developer"))


@dataclass(frozen=True)
class Reply:
    """A successful completion: ``text`` after ``delay`` seconds.

    ``drip`` > 0 sends the answer's headers at once and then its body one byte every
    ``drip`` seconds (an endpoint that keeps a connection alive without answering: a
    per-read timeout never fires, only a deadline per call does).
    """

    text: str
    delay: float = 0.0
    finish_reason: str = "stop"
    drip: float = 0.0


@dataclass(frozen=True)
class HttpError:
    """An error answer: HTTP ``status`` with ``message``, extra ``headers``, after ``delay``.

    ``body``, when given, is sent verbatim as the JSON body (a real server's own error
    shape, e.g. llama.cpp's ``exceed_context_size_error``) instead of the generic one."""

    status: int
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    error_type: str = "server_error"
    body: Mapping[str, Any] | None = None


Outcome = Reply | HttpError
"""What a policy returns for one request."""


class Policy(ABC):
    """Answers chat requests; must be safe to call from several threads."""

    name: ClassVar[str] = "policy"

    @abstractmethod
    def respond(self, request: PolicyRequest) -> Outcome:
        """The outcome for ``request`` (raise :class:`PolicyError` for a bad request)."""


PolicyFactory = Callable[..., Policy]


class PolicyRegistry(dict[str, PolicyFactory]):
    """Policy factories by name, complete whenever it is read as a whole.

    Listing it (iterating, ``len``, ``keys``/``values``/``items``) or asking for a name it
    does not hold yet first imports the ``accord.policies`` entry-point modules
    (:func:`load_policy_modules`), so what it lists does not depend on which domain
    modules some earlier code happened to import. :func:`register_policy` writes through
    the plain ``dict`` methods, so registering while those modules import loads nothing.
    """

    def __iter__(self) -> Iterator[str]:
        load_policy_modules()
        return super().__iter__()

    def __len__(self) -> int:
        load_policy_modules()
        return super().__len__()

    def __contains__(self, name: object) -> bool:
        if super().__contains__(name):
            return True
        load_policy_modules()
        return super().__contains__(name)

    def keys(self) -> KeysView[str]:  # type: ignore[override]  # (dict_keys: private)
        load_policy_modules()
        return super().keys()

    def values(self) -> ValuesView[PolicyFactory]:  # type: ignore[override]
        load_policy_modules()
        return super().values()

    def items(self) -> ItemsView[str, PolicyFactory]:  # type: ignore[override]
        load_policy_modules()
        return super().items()


POLICIES: PolicyRegistry = PolicyRegistry()
"""Policy factories by name; extend with :func:`register_policy`."""


def register_policy(name: str) -> Callable[[PolicyFactory], PolicyFactory]:
    """Decorator registering a policy class or factory under ``name``."""

    def deco(factory: PolicyFactory) -> PolicyFactory:
        # the plain dict lookup: a module registering its policies while the entry-point
        # modules load must not start loading them again
        if dict.__contains__(POLICIES, name) and dict.__getitem__(POLICIES, name) is not factory:
            raise ValueError(f"stub policy {name!r} is already registered")
        POLICIES[name] = factory
        return factory

    return deco


_loaded = False


def load_policy_modules() -> None:
    """Import every module of the ``accord.policies`` entry-point group (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def make_policy(name: str, **options: Any) -> Policy:
    """Build the registered policy ``name`` with ``options``."""
    factory = POLICIES.get(name) if name in POLICIES else None
    if factory is None:
        known = ", ".join(sorted(POLICIES))
        raise KeyError(f"unknown stub policy {name!r}; known policies: {known}")
    try:
        return factory(**options)
    except TypeError as exc:
        raise PolicyError(f"stub policy {name!r} cannot be built with {options!r}: {exc}") from exc


def as_policy(policy: Policy | str) -> Policy:
    """A policy object from an object or a registered name."""
    return make_policy(policy) if isinstance(policy, str) else policy


__all__ = [
    "ENTRY_POINT_GROUP",
    "POLICIES",
    "HttpError",
    "Outcome",
    "Policy",
    "PolicyError",
    "PolicyFactory",
    "PolicyRegistry",
    "PolicyRequest",
    "Reply",
    "as_policy",
    "load_policy_modules",
    "make_policy",
    "register_policy",
]
