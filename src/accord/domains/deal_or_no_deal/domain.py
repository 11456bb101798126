"""The ``deal-or-no-deal`` domain plug-in for the CLI and the experiment runner.

Scenarios are datapoint ids: unique dialogues (``test/0`` ... ``test/544``, ``val/...``,
Alice = the side seen first) or single lines (``test/L7`` = line 7 of test.txt, Alice = its
``<input>`` side: the seed's datapoints and ``sample50.txt``'s, see :mod:`.selection`).
Episode parameters:

| param | default | meaning |
|---|---|---|
| ``data`` | ``RunContext.data``, ``ACCORD_DATA``, user folder | data file or folder |
| ``rounds`` | 20 | round cap R |
| ``first`` | ``alice`` | who opens: ``alice``, ``bob`` or ``data`` (the human order) |
| ``hardest`` | none | if set, the scenario must be among the k hardest, kept if envy-free |
| ``max_retries`` | 5 | invalid attempts allowed per turn |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field

from accord.agents.spec import parse_agent_spec
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.domains.deal_or_no_deal.agents import AGENT_KINDS
from accord.domains.deal_or_no_deal.episode import (
    find_datapoint,
    load_datapoints,
    play_datapoint,
)
from accord.domains.deal_or_no_deal.listing import scenarios_hint as SCENARIOS_HINT
from accord.domains.deal_or_no_deal.location import DataNotFoundError
from accord.domains.deal_or_no_deal.metrics import episode_metrics
from accord.domains.deal_or_no_deal.selection import (
    load_line,
    load_selection,
    parse_line_id,
    select,
)
from accord.domains.params import TalkStagnationParams, read_params
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit


class DondParams(TalkStagnationParams):
    """Episode parameters of Deal or No Deal (seed 003, section 5)."""

    data: str | None = Field(None, description="data directory (default: ACCORD_DATA or the "
                             "installed copy)")
    rounds: int = Field(20, ge=1, description="dialogue rounds before no deal")
    first: Literal["alice", "bob", "data"] = Field(
        "alice", description="who opens: a role, or data for the human dialogue's opener")
    hardest: int | None = Field(None, ge=1, description="refuse a datapoint outside the K "
                                "most difficult with an envy-free allocation")


PARAMS = tuple(DondParams.model_fields)


def check_params(params: Mapping[str, Any]) -> DondParams:
    """The parameters, or a ``ValueError`` naming the unknown or mistyped key."""
    return read_params(DondParams, params, "deal-or-no-deal")


def _split(scenario: str) -> str:
    split, slash, num = scenario.partition("/")
    line = parse_line_id(scenario)
    if not slash or split not in ("test", "val") or not (num.isdigit() or line):
        raise ValueError(f"scenario {scenario!r} must look like test/<n> or val/<n> (a unique "
                         "dialogue) or test/L<line> (one line, Alice = its <input> side)")
    return split


class DealOrNoDealDomain(Domain):
    """Negotiation over books, hats and balls on the human Deal-or-No-Deal dialogues."""

    name = "deal-or-no-deal"
    params_model = DondParams

    #: ``--max-rounds`` caps the dialogue's rounds
    run_options: ClassVar[Mapping[str, str]] = {"max_rounds": "rounds"}

    #: shown by ``accord scenarios`` when the data is not installed
    scenarios_hint = SCENARIOS_HINT

    def scenarios(self) -> list[str]:
        """Ids of the unique test dialogues (empty when the data is not installed)."""
        try:
            return [d.id for d in load_datapoints(None, "test")]
        except DataNotFoundError:
            return []

    def agent_kinds(self) -> list[str]:
        """Agent kinds this domain builds (installed ones included)."""
        return sorted(AGENT_KINDS.kinds())

    def validate(self, spec: EpisodeSpec) -> None:
        """Check scenario id, parameters and agent line-up before running."""
        _split(spec.scenario)
        self.params(spec)
        if len(spec.agents) != 2:
            raise ValueError(f"deal-or-no-deal needs 2 agents (alice, bob), got "
                             f"{len(spec.agents)}")
        for a in spec.agents:  # unknown kinds, bad options; no LLM client, no seat needed
            AGENT_KINDS.check(parse_agent_spec(a))

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        """Load the datapoint and negotiate it (LLM agents use ``ctx.llm`` and
        ``ctx.episode_id``)."""
        self.validate(spec)
        p = check_params(spec.params)
        data = p.data or ctx.data
        split = _split(spec.scenario)
        line = parse_line_id(spec.scenario)
        if line is None:
            points = load_datapoints(data, split)
            dp = find_datapoint(points, spec.scenario)
        else:
            dp = load_line(data, split, line[1])
            points = load_selection(data, split, "seed")
        if p.hardest is not None and dp not in select(points, p.hardest):
            raise ValueError(f"scenario {spec.scenario} is not among the {p.hardest} "
                             "hardest datapoints that admit an envy-free allocation")
        return await play_datapoint(dp, spec.agents, rounds=p.rounds, seed=spec.seed,
                                    first=p.first, max_retries=p.max_retries,
                                    stagnation_rounds=p.stagnation_rounds,
                                    ctx={"llm": ctx.llm, "episode_id": ctx.episode_id,
                                         "seat": ctx.extra.get("seat")})

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """Pure per-episode metrics (see :func:`episode_metrics`)."""
        return episode_metrics(result.record, result.rounds)

    def layouts(self) -> dict[str, Callable[[list[dict[str, Any]]], tuple[str, Any]]]:
        """``dond``: seed 003's Tables 10-13 and 17-18
        (:mod:`accord.domains.deal_or_no_deal.layout`)."""
        from accord.domains.deal_or_no_deal.layout import dond_layout

        return {"dond": dond_layout}

    def conformance_kit(self) -> ProtocolKit:
        """The protocol on the installed test datapoints (fixed in-code datapoints when the
        data is absent), see :mod:`accord.domains.deal_or_no_deal.conformance`."""
        from accord.domains.deal_or_no_deal.conformance import data_points, kit

        return kit(data_points())


DOMAIN = register_domain(DealOrNoDealDomain())
