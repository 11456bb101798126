"""The domain plug-in interface used by the CLI and the experiment runner.

A domain (bargaining, task-exchange, games, deal-or-no-deal, deliberation) names its
scenarios and agent kinds, runs one episode from an :class:`EpisodeSpec`, and computes
its metrics as a pure function of the result (DESIGN.md principle 6). The runner in
``accord.bench`` only talks to this interface, so domains plug in without touching it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from accord.core.names import unknown_name

if TYPE_CHECKING:  # annotations only: the interface module stays light (no pydantic, numpy)
    from accord.agents.spec import AgentSpec
    from accord.domains.params import DomainParams
    from accord.protocols.engine import EpisodeResult
    from accord.protocols.kit import ProtocolKit


@dataclass(frozen=True)
class EpisodeSpec:
    """Everything that defines one episode; its hash is the episode id."""

    domain: str
    scenario: str
    agents: tuple[AgentSpec, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON-ready form (used for hashing and storage)."""
        return {
            "domain": self.domain,
            "scenario": self.scenario,
            "agents": [str(a) for a in self.agents],
            "params": dict(sorted(self.params.items())),
            "seed": self.seed,
        }


@dataclass
class RunContext:
    """Side-effect settings handed down from the CLI or runner (never part of the spec).

    ``llm`` holds LLM settings (cache path and mode, endpoint overrides); ``data`` the data
    directory; ``episode_id`` scopes LLM cache entries.
    """

    episode_id: str = ""
    llm: dict[str, Any] = field(default_factory=dict)
    data: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Domain(ABC):
    """A family of scenarios with its protocol, agents and metrics."""

    #: registry name, e.g. ``bargaining``
    name: str

    @abstractmethod
    def scenarios(self) -> list[str]:
        """Names of the built-in scenarios (or instances)."""

    @abstractmethod
    def agent_kinds(self) -> list[str]:
        """Agent kinds this domain can build from specs."""

    @abstractmethod
    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        """Build the scenario, protocol and agents from ``spec`` and run one episode."""

    @abstractmethod
    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """Pure per-episode metrics (numbers, bools or None) for aggregation."""

    def layouts(self) -> dict[str, Callable[[list[dict[str, Any]]], tuple[str, Any]]]:
        """Paper-style result tables this domain can print from stored episodes.

        Each maps a name (``accord results STORE --layout NAME``) to a pure function of the
        stored episodes (dicts with ``spec``, ``labels``, ``status``, ``metrics``) returning
        ``(text, json_ready)``. Default: none.
        """
        return {}

    #: the domain's parameters (:mod:`accord.domains.params`): the one home of their
    #: defaults; ``None`` for a domain that checks its params itself
    params_model: ClassVar[type[DomainParams] | None] = None

    def params(self, spec: EpisodeSpec) -> DomainParams:
        """The spec's parameters read through :attr:`params_model` (``ValueError`` naming
        the key when one is unknown or wrong)."""
        from accord.domains.params import read_params

        if self.params_model is None:
            raise TypeError(f"domain {self.name!r} declares no params_model")
        return read_params(self.params_model, spec.params, self.name)

    #: ``accord run`` options this domain takes, by option name (``max_rounds`` for
    #: ``--max-rounds``) -> the params key it sets. ``accord run`` refuses any other
    #: domain option by name; ``--param KEY=VALUE`` reaches every key of every domain.
    run_options: ClassVar[Mapping[str, str]] = {"max_rounds": "max_rounds"}

    def run_spec(self, rest: str, agents: Sequence[AgentSpec], params: Mapping[str, Any],
                 seed: int) -> EpisodeSpec:
        """The episode ``accord run NAME/REST`` asks for (``params`` already mapped from the
        command's options). The default reads ``REST`` as the scenario name."""
        return EpisodeSpec(self.name, rest, tuple(agents), dict(params), seed)

    def deterministic(self, spec: EpisodeSpec) -> bool:
        """Whether the episode's outcome cannot depend on its seed: every agent (and any
        other seeded role) is declared deterministic. The default, ``False``, claims
        nothing; ``accord bench`` warns about cells for which this is ``True`` and that run
        several seeds (their episodes are identical)."""
        return False

    def headline(self, spec: EpisodeSpec) -> str:
        """One line naming the episode before its transcript (plain text; the CLI escapes it)."""
        return f"{self.name}/{spec.scenario}: {', '.join(str(a) for a in spec.agents)}"

    def summary(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """The JSON object ``accord run --json`` prints for a finished episode.

        The default is the engine's summary with this domain's metrics; a domain with a
        documented ``--json`` contract overrides it.
        """
        return {**result.summary(), "metrics": self.metrics(spec, result)}

    def outcome_text(self, summary: Mapping[str, Any]) -> str | None:
        """One sentence for people saying how the episode ended in the domain's own words
        (``accord run`` prints it above the record), or ``None`` when the record says it."""
        return None

    def episode_figure(self, key: str, spec: Mapping[str, Any],
                       summary: Mapping[str, Any] | None,
                       events: Sequence[Mapping[str, Any]]) -> str | None:
        """A figure of one stored episode for ``accord serve``'s transcript page, or
        ``None`` (the default: no figure).

        ``key`` identifies the episode (for caching), ``spec``/``summary``/``events`` are
        the stored episode. Return HTML: inline SVG or an ``<img>`` with a data URI, no
        script and no external link; escape every text taken from the episode (it came
        from a model, a file or a person). Never open a path named in ``spec``: the web
        app serves stored data only.
        """
        return None

    def conformance_kit(self) -> ProtocolKit | None:
        """How :func:`accord.testing.check_protocol` exercises this domain's protocol
        (random legal and illegal moves, private objects per role); ``None``: no kit."""
        return None

    def validate(self, spec: EpisodeSpec) -> None:
        """Check ``spec`` before any episode runs; raise ``ValueError`` naming the problem.

        The experiment runner calls this for every expanded episode so a bad scenario,
        parameter or agent line-up is reported as a config error up front instead of
        as thousands of failed episodes. The default accepts everything (``run_episode``
        still validates).
        """
        return None


_DOMAINS: dict[str, Domain] = {}


def register_domain(domain: Domain) -> Domain:
    """Add a domain to the registry (explicit, DESIGN.md principle 10)."""
    _DOMAINS[domain.name] = domain
    return domain


def get_domain(name: str) -> Domain:
    """The registered domain called ``name``, with a helpful error otherwise.

    An installed domain is imported on its own through its entry point (the others stay
    unloaded); any other name loads every installed domain first, so the error can list
    them all. A plug-in that fails to import raises ``KeyError`` naming it and why.
    """
    if name in _DOMAINS:
        return _DOMAINS[name]
    from accord.domains import load_builtin_domains, load_domain

    try:
        load_domain(name)
    except ImportError as exc:
        raise KeyError(str(exc)) from None
    if name not in _DOMAINS:
        load_builtin_domains()
    try:
        return _DOMAINS[name]
    except KeyError:
        raise KeyError(unknown_name("domain", name, _DOMAINS)) from None


def registered_domains() -> dict[str, Domain]:
    """The domains registered so far in this process (nothing is imported to find more)."""
    return dict(_DOMAINS)


def all_domains() -> dict[str, Domain]:
    """Every registered domain, by name."""
    from accord.domains import load_builtin_domains

    load_builtin_domains()
    return dict(_DOMAINS)
