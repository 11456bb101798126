"""LLM workflow agents: the game-theoretic workflows of seed 003, section 4.4, run by a model.

Agent kind ``llm-workflow`` (``llm-workflow:MODEL?temperature=1``, same options as ``llm``).
It is an :class:`~accord.domains.games.llm.agents.LLMGameAgent` whose system prompt announces
the workflow and which, before its first negotiation message or action, derives a strategy
in a fixed sequence of model calls in the same append-only session:

* **simultaneous games** (4.4.1, normal form, two players), three LLM calls:

  1. for each own action ``a_i``: the other player's best response ``a_-i*(a_i)`` and the
     own payoff ``U_i(a_i, a_-i*(a_i))`` -> ``<RESULT>{a_i: {"response", "my_payoff"}}``;
  2. for each action ``a_-i`` of the other player: the own best response ``a_i*(a_-i)``
     and its payoff -> ``<RESULT>{a_-i: {"best_response", "my_payoff"}}``;
  3. the summary: a Nash profile built from both lists (or none in pure actions) and the
     strategy -> ``<NASH>{player: action}</NASH>`` and ``<STRATEGY>text</STRATEGY>``.

* **sequential games** (4.4.2, perfect-information trees), one LLM call per depth of the
  tree, deepest decision nodes first (backward induction: for every node ``h`` at that
  depth the optimal action ``a*(h)`` of its mover and the value vector ``V(h)``), then one
  call for the summary: ``<PLAN>{node: action}</PLAN>`` for the agent's own decision
  nodes and ``<STRATEGY>text</STRATEGY>``. Each level's prompt lists the nodes with their
  actions, leaf payoffs, and for inner children the value the model itself found at the
  previous level (the code keeps the model's numbers explicit; it never corrects them).

**What stays in context.** Every step's prompt and reply stay in the session, so the whole
chain of reasoning is in context for the rest of the episode; in addition the derived
strategy (the model's ``<STRATEGY>`` text, its Nash profile or plan) is repeated in every
later prompt - each negotiation turn, each action turn (with "at this node your plan
says ..." in sequential games) and each retry - as the seed incorporates it "into the
contextual framework for each decision-making and negotiation step". The code does not
override the final choice: the model decides, with its strategy in front of it, so
negotiation can still pull it away (Table 8).

A step's reply that cannot be read (missing tag, bad JSON, unknown action, missing node)
is asked again with targeted feedback, up to ``max_retries`` times; then the episode
ends with an error naming the step. Each step leaves a ``workflow_step`` note (its parsed
result) and the end of the workflow a ``workflow`` note; :meth:`LLMWorkflowAgent.record`
goes into the episode record, where :mod:`.metrics` scores the derived strategy against
the exact solvers (``workflow_correct``). With ``structured=json_schema|grammar`` each
step's call carries the JSON schema of its result (:mod:`.workflow_structured`: the
actions and nodes of the game, the right number of payoffs), read by the same parsers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Malformed
from accord.domains.games.describe import fmt_number
from accord.domains.games.llm import workflow_structured as wst
from accord.domains.games.llm.agents import LLMGameAgent, llm_client, llm_options
from accord.domains.games.llm.prompts import (
    Strategy,
    node_name,
    payoff_text,
    render_prompt,
)
from accord.domains.games.llm.replies import StepError, json_tag, names, text_tag
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.domains.games.protocol import GameObservation
from accord.llm import GenerationConfig, LLMClient
from accord.protocols.engine import DEFAULT_MAX_RETRIES
from accord.solvers.game_tree import Decision, Leaf, decision_nodes
from accord.solvers.payoff_arrays import to_fraction

Parser = Callable[[str], Any]


def _number(value: Any, where: str) -> Fraction:
    try:
        return to_fraction(value)
    except (TypeError, ValueError):
        raise StepError("invalid_number", f"{where}: expected a number, got {value!r}") from None


def _keyed(data: Mapping[str, Any], keys: Sequence[str], what: str) -> dict[str, Any]:
    """``data`` re-keyed to the exact names in ``keys`` (matched ignoring case and spaces)."""
    by_lower = {k.lower(): k for k in keys}
    out: dict[str, Any] = {}
    for raw, val in data.items():
        key = by_lower.get(str(raw).strip().lower())
        if key is None:
            raise StepError("unknown_key", f"{raw!r} is not {what}; the keys must be exactly: "
                            f"{', '.join(keys)}")
        out[key] = val
    missing = [k for k in keys if k not in out]
    if missing:
        raise StepError("missing_key", f"missing {what}: {', '.join(missing)}; give every one "
                        f"of: {', '.join(keys)}")
    return out


def _legal(given: Sequence[str], legal: Sequence[str], where: str) -> list[str]:
    by_lower = {a.lower(): a for a in legal}
    out = []
    for g in given:
        if g.lower() not in by_lower:
            raise StepError("unknown_action", f"{where}: {g!r} is not one of {', '.join(legal)}")
        out.append(by_lower[g.lower()])
    return out


def parse_responses(text: str, keys: Sequence[str], legal: Sequence[str], field: str
                    ) -> dict[str, dict[str, Any]]:
    """Steps 1 and 2 of 4.4.1: ``{key: {field: [actions], "my_payoff": Fraction}}``."""
    data = _keyed(json_tag(text, "RESULT"), keys, "an action of this step")
    out: dict[str, dict[str, Any]] = {}
    for key, row in data.items():
        if not isinstance(row, Mapping) or field not in row or "my_payoff" not in row:
            raise StepError("invalid_entry", f"the entry for {key!r} must be an object with "
                            f'"{field}" and "my_payoff"')
        out[key] = {field: _legal(names(row[field]), legal, f"{key}.{field}"),
                    "my_payoff": _number(row["my_payoff"], f"{key}.my_payoff")}
    return out


def parse_nash(text: str, game: NormalFormGame) -> tuple[dict[str, str] | None, str]:
    """Step 3 of 4.4.1: the ``<NASH>`` profile (or ``None``) and the ``<STRATEGY>`` text."""
    raw = json_tag(text, "NASH", allow_none=True)
    strategy = text_tag(text, "STRATEGY")
    if raw is None:
        return None, strategy
    data = _keyed(raw, game.players, "a player")
    profile = {p: _legal(names(data[p]), game.actions[i], f"NASH.{p}")[0]
               for i, p in enumerate(game.players)}
    return profile, strategy


class LLMWorkflowAgent(LLMGameAgent):
    """An LLM that derives its strategy with the workflow of 4.4.1 or 4.4.2 first."""

    name = "llm-workflow"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, game: Game,
                 **kwargs: Any) -> None:
        if isinstance(game, NormalFormGame) and len(game.players) != 2:
            raise AgentSpecError(f"llm-workflow: the simultaneous-game workflow (seed 003, "
                                 f"4.4.1) is defined for two players; this game has "
                                 f"{len(game.players)}")
        self.workflow_kind = "simultaneous" if isinstance(game, NormalFormGame) else "sequential"
        super().__init__(client, config, **kwargs)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the session and the derived strategy."""
        super().reset(rng)
        self.steps: list[dict[str, Any]] = []

    def record(self) -> dict[str, Any] | None:
        """The derived strategy and the parsed step results, for the episode record."""
        if self.strategy is None:
            return None
        return {**self.strategy.to_dict(), "steps": self.steps}

    async def prepare(self, obs: GameObservation) -> None:
        """Run the workflow once, before the agent's first message or action."""
        if self.strategy is not None:
            return
        game = obs.game
        if isinstance(game, NormalFormGame):
            self.strategy = await self._simultaneous(obs, game)
        else:
            assert isinstance(game, ExtensiveGame)
            self.strategy = await self._sequential(obs, game)
        self.note("workflow", self.strategy.to_dict())

    async def _reply(self, obs: GameObservation, prompt: str, step: str,
                     shape: tuple[Mapping[str, Any], Callable[[Mapping[str, Any]], str]] | None
                     ) -> str:
        """One step's call; with structured output on, ``shape`` (the step's JSON schema and
        how its reply reads as the step's tags) goes with it (:mod:`.structured`)."""
        lead = {"call": f"workflow:{step}"}
        if shape is None or self.structured_mode() == "off":
            return (await self.ask(obs, prompt, lead)).text
        if self.session is None:
            self.session = self.open_session(self.system_prompt(obs), obs.role)
        _, data = await self.complete_structured(self.session, prompt, shape[0],
                                                 who=obs.role, lead=lead)
        if isinstance(data, Malformed):
            raise StepError(data.reason, data.feedback)
        return shape[1](data)

    async def _step(self, obs: GameObservation, step: str, number: int, template: str,
                    parse: Parser, expected: str, context: Mapping[str, Any],
                    shape: tuple[Mapping[str, Any], Callable[[Mapping[str, Any]], str]]
                    | None = None) -> Any:
        """One workflow step: ask, parse, and on a bad reply ask again with feedback."""
        prompt = render_prompt(template, **context)
        budget = self.attempts(obs)  # the engine's one retry budget
        for attempt in range(1, budget + 1):
            try:
                result = parse(await self._reply(obs, prompt, step, shape))
            except StepError as err:
                self.note("workflow_step", {"step": step, "attempt": attempt,
                                            "error": err.reason, "feedback": err.feedback})
                prompt = render_prompt("wf_retry.jinja", step=number, reason=err.reason,
                                       feedback=err.feedback, attempt=attempt + 1,
                                       max_attempts=budget, expected=expected)
                continue
            self.steps.append({"step": step, "result": _jsonable(result), "attempts": attempt})
            self.note("workflow_step", {"step": step, "attempt": attempt,
                                        "result": _jsonable(result)})
            return result
        raise RuntimeError(f"{obs.role}'s workflow step {step!r} got no usable answer in "
                           f"{budget} attempts")

    async def _simultaneous(self, obs: GameObservation, game: NormalFormGame) -> Strategy:
        me = obs.player_index
        other = 1 - me
        mine, theirs = list(game.actions[me]), list(game.actions[other])
        who = game.players[other]
        result = "a JSON object inside <RESULT>...</RESULT>"
        await self._step(obs, "opponent_best_responses", 1, "wf_responses.jinja",
                         lambda t: parse_responses(t, mine, theirs, "response"), result,
                         {"other": who, "mine": mine},
                         (wst.responses(mine, theirs, "response"), wst.result_tags))
        await self._step(obs, "own_best_responses", 2, "wf_best.jinja",
                         lambda t: parse_responses(t, theirs, mine, "best_response"), result,
                         {"other": who, "theirs": theirs},
                         (wst.responses(theirs, mine, "best_response"), wst.result_tags))
        example = {p: game.actions[i][0] for i, p in enumerate(game.players)}
        nash, text = await self._step(
            obs, "nash", 3, "wf_nash.jinja", lambda t: parse_nash(t, game),
            "<NASH>{...}</NASH> (or <NASH>none</NASH>) and <STRATEGY>...</STRATEGY>",
            {"other": who, "example": example},
            (wst.nash(game.players, game.actions), wst.nash_tags))
        return Strategy("simultaneous", text, nash=nash)

    async def _sequential(self, obs: GameObservation, game: ExtensiveGame) -> Strategy:
        nodes = decision_nodes(game.tree)
        depths = sorted({len(p) for p, _ in nodes}, reverse=True)
        steps = len(depths) + 1
        values: dict[str, list[Fraction]] = {}
        players = list(game.players)
        for number, depth in enumerate(depths, start=1):
            level = [(p, n) for p, n in nodes if len(p) == depth]
            shown = [self._node_view(game, p, n, values) for p, n in level]
            parsed = await self._step(
                obs, "backward_induction", number, "wf_backward.jinja",
                partial(self._parse_level, game=game, level=level),
                "a JSON object inside <RESULT>...</RESULT> with every node listed",
                {"step": number, "steps": steps, "depth": depth, "nodes": shown,
                 "players": players},
                (wst.level({node_name(p): n.actions for p, n in level}, len(players)),
                 wst.result_tags))
            values.update({k: v["value"] for k, v in parsed.items()})
        own = [node_name(p) for p, n in nodes if n.player == obs.player_index]
        legal = {node_name(p): n.actions for p, n in nodes}
        example = {own[0]: legal[own[0]][0]} if own else {}
        plan, text = await self._step(
            obs, "plan", steps, "wf_plan.jinja", lambda t: self._parse_plan(t, own, legal),
            "<PLAN>{...}</PLAN> and <STRATEGY>...</STRATEGY>",
            {"step": steps, "steps": steps, "own": own, "example": example},
            (wst.plan({node: legal[node] for node in own}), wst.plan_tags))
        return Strategy("sequential", text, plan=plan)

    @staticmethod
    def _node_view(game: ExtensiveGame, path: tuple[str, ...], node: Decision,
                   values: Mapping[str, list[Fraction]]) -> dict[str, Any]:
        options = []
        for action, child in zip(node.actions, node.children, strict=True):
            name = node_name((*path, action))
            if isinstance(child, Leaf):
                options.append({"action": action, "leaf": payoff_text(game.players, child.payoff),
                                "child": None, "value": None})
            else:
                found = values.get(name)
                options.append({"action": action, "leaf": None, "child": name,
                                "value": None if found is None else
                                "[" + ", ".join(fmt_number(v) for v in found) + "]"})
        return {"path": node_name(path), "mover": game.players[node.player], "options": options}

    @staticmethod
    def _parse_level(text: str, game: ExtensiveGame,
                     level: Sequence[tuple[tuple[str, ...], Decision]]) -> dict[str, Any]:
        wanted = {node_name(p): n for p, n in level}
        data = _keyed(json_tag(text, "RESULT"), list(wanted), "a node of this level")
        out: dict[str, Any] = {}
        n = len(game.players)
        for name, row in data.items():
            if not isinstance(row, Mapping) or "action" not in row or "value" not in row:
                raise StepError("invalid_entry", f'the entry for node {name} must be an object '
                                f'with "action" and "value"')
            action = _legal(names(row["action"]), wanted[name].actions, f"{name}.action")[0]
            value = row["value"]
            if not isinstance(value, list) or len(value) != n:
                raise StepError("invalid_value", f"{name}.value must be a list of {n} payoffs "
                                f"(in the order {', '.join(game.players)}), got {value!r}")
            out[name] = {"action": action,
                         "value": [_number(v, f"{name}.value") for v in value]}
        return out

    @staticmethod
    def _parse_plan(text: str, own: Sequence[str], legal: Mapping[str, Sequence[str]]
                    ) -> tuple[dict[str, str], str]:
        strategy = text_tag(text, "STRATEGY")
        if not own:
            return {}, strategy
        data = _keyed(json_tag(text, "PLAN"), own, "one of your decision nodes")
        plan = {node: _legal(names(data[node]), legal[node], f"PLAN {node}")[0] for node in own}
        return plan, strategy


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return fmt_number(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def make_llm_workflow(spec: AgentSpec, game: Game, player: int, ctx: Mapping[str, Any]
                      ) -> LLMWorkflowAgent:
    """Factory of kind ``llm-workflow``: ``llm-workflow:MODEL[?temperature=..&personality=..]``."""
    opts = llm_options(spec)
    client, config = llm_client(spec, ctx)
    return LLMWorkflowAgent(client, config, game=game, episode=ctx.get("episode_id") or None,
                            max_retries=int(ctx.get("max_retries", DEFAULT_MAX_RETRIES)), **opts)


__all__ = ["LLMWorkflowAgent", "make_llm_workflow", "parse_nash", "parse_responses"]
