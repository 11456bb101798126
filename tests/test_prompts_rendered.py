"""Every prompt template, rendered through the code that builds real LLM sessions, reads
as text: no two sentences or list items glued together, no doubled blank lines, no stray
Jinja syntax (issue 23: "...in this order: Alice, Bob.2. Play: ..." reached real models).

Episodes of every domain run against the stub server with LLM agents in every role
(negotiators with a leak judge, a mediator, a termination judge and a Stagnation Scorer;
games in every prompt variant; Deal-or-No-Deal in its three agent kinds; deliberation
with and without tools; task exchange in both strategies), some of them answering badly
so the retry/feedback prompts are rendered too. Checked are (a) the output of every
Jinja render on the way, recorded by template name, and (b) every message the endpoint
received. The test also requires that every template file under ``src/accord/**/prompts``
was rendered, so a new template cannot escape the check.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.llm.policy import make_policy
from accord.testing.stub import (
    FaultyPolicy,
    Policy,
    PolicyRequest,
    Reply,
    ScriptedPolicy,
    StubServer,
)

SRC = Path(__file__).resolve().parent.parent / "src" / "accord"
TEMPLATE_SUFFIXES = (".j2", ".jinja", ".txt")
S = "openai-api/stub"

#: (name, pattern) of the defects a rendered prompt must not have
DEFECTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("numbered item glued to the previous sentence", re.compile(r"(?<!\d)[a-z.)]\d+\. [A-Z]")),
    ("sentence glued to the previous one", re.compile(r"[a-z]{2}\.[A-Z][a-z]")),
    ("numbered item on the line of the previous sentence",
     re.compile(r"[a-z][.:!?] +[1-9]\d?\. [A-Z][a-z]")),
    ("bullet on the line of the previous sentence", re.compile(r"[a-z][.:!?] +- [A-Z][a-z]")),
    ("doubled blank line", re.compile(r"\n[ \t]*\n[ \t]*\n")),
    ("sentence broken by a line break inside parentheses", re.compile(r"\([^()\n]*\n")),
    ("feedback sentence without its full stop",
     re.compile(r"could not be used[^\n]*[A-Za-z0-9_>)]\n")),
    ("stray Jinja syntax", re.compile(r"\{\{|\{%|%\}|\{#|#\}")),
)


def defects(text: str) -> list[str]:
    """Each defect found in ``text``, with the spot it was found at."""
    out = []
    for name, pattern in DEFECTS:
        for m in pattern.finditer(text):
            lo, hi = max(0, m.start() - 40), m.end() + 40
            out.append(f"{name}: ...{text[lo:hi]!r}...")
    return out


def template_files() -> set[str]:
    """Every prompt template shipped, as ``<package dir>/prompts/<file>``."""
    return {str(p.relative_to(SRC)) for p in SRC.rglob("*")
            if p.suffix in TEMPLATE_SUFFIXES and "prompts" in p.relative_to(SRC).parts}


def test_the_defect_patterns_catch_the_reported_gluing() -> None:
    assert defects("in this order: Alice, Bob.2. Play: then every player")
    assert defects("the deal is final.Then nobody moves")
    assert defects("Rules: 1. Be nice")
    assert defects("one\n\n\ntwo") and defects("Hello {{ name }}")
    assert defects("proposals (your share, your points, probability the split is\n"
                   "envy-free for both):")
    assert defects("Your previous reply could not be used: it holds no verdict\nAttempt 2")
    assert not defects("1. First rule.\n2. Second rule, worth 0.5. Then more.\n\nNext")
    assert not defects('{"a": {"b": 1}} is JSON; e.g. the U.S. price')


class Recorder:
    """Records every Jinja render (template file and text) while installed."""

    def __init__(self) -> None:
        self.renders: list[tuple[str, str]] = []
        self.loaded: set[str] = set()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        render = jinja2.Template.render
        get_template = jinja2.Environment.get_template
        rec = self

        def recording_render(template: jinja2.Template, *args: Any, **kwargs: Any) -> str:
            out = render(template, *args, **kwargs)
            rec.renders.append((template.filename or template.name or "<string>", out))
            return out

        def recording_get(env: jinja2.Environment, name: Any, *args: Any, **kwargs: Any
                          ) -> jinja2.Template:
            t = get_template(env, name, *args, **kwargs)
            if t.filename:
                rec.loaded.add(t.filename)
            return t

        monkeypatch.setattr(jinja2.Template, "render", recording_render)
        monkeypatch.setattr(jinja2.Environment, "get_template", recording_get)


class Chatty(Policy):
    """A stub policy whose every reply also carries a message (so the leak judge is asked)."""

    def __init__(self, inner: str) -> None:
        self.inner = make_policy(inner)

    def respond(self, request: PolicyRequest) -> Any:
        out = self.inner.respond(request)
        if isinstance(out, Reply):
            return Reply(out.text + "<MESSAGE>I think this is a fair offer.</MESSAGE>")
        return out


class FirstUnusable(Policy):
    """Answers its first request with ``text`` (unusable: in no tag, or empty), then like
    ``inner``."""

    def __init__(self, inner: str, text: str = "I am not sure what to answer.") -> None:
        self.inner = make_policy(inner)
        self.text = text
        self.first = True

    def respond(self, request: PolicyRequest) -> Any:
        if self.first:
            self.first = False
            return Reply(self.text)
        return self.inner.respond(request)


def _games(stub: StubServer) -> None:
    from accord.domains.games import GamesDomain

    runs = [("prisoners-dilemma", "llm", 0, {}), ("prisoners-dilemma", "llm?cheap_talk=true", 1,
            {}), ("golden-balls", "llm?personality=witty&prompt=3", 1, {"jackpot": 100}),
            ("stag-hunt", "llm-workflow", 1, {}), ("escalation", "llm-workflow", 1, {}),
            ("trigame", "llm", 1, {}),
            # Alice's first workflow step is unusable: the retry prompt
            ("stag-hunt", "llm-workflow@games-wf-bad", 0, {})]
    for game, kind, k, extra in runs:
        kind, _, model = kind.partition("@")
        name, _, opts = kind.partition("?")
        alice = parse_agent_spec(f"{name}:{S}/{model or 'games'}" + (f"?{opts}" if opts else ""))
        bob = parse_agent_spec(f"{name}:{S}/games-bad")
        spec = EpisodeSpec("games", game, (alice, bob), {"negotiation_rounds": k, **extra}, 0)
        res = asyncio.run(GamesDomain().run_episode(spec, RunContext()))
        assert res.status != "error", res.detail


def _bargaining(stub: StubServer) -> None:
    from accord.domains.bargaining import resolve_scenario, run_negotiation

    asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), [
        f"llm:{S}/chatty?guard_judge={S}/leak&floor_rule=true", f"llm:{S}/negotiator-bad"],
        params={"max_rounds": 4, "judge": f"llm:{S}/judge"}, seed=1))
    # structured output: the reply's fields after the turn's prompt (structured_reply.j2)
    asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), [
        f"llm:{S}/structured?structured=json_schema", "boulware"], params={"max_rounds": 2}))
    # a history window: the note that earlier exchanges were left out (history_window.j2)
    asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), [
        f"llm:{S}/negotiator?history=1", "boulware"],
        params={"max_rounds": 8, "stagnation_rounds": 0}))
    asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"], params={
        "max_rounds": 8, "mediator": f"llm:{S}/mediator", "stagnation": f"llm:{S}/stagnation",
        "stagnation_measure": "issues", "stagnation_order": "mediator-first"}))


def _deal_or_no_deal(stub: StubServer) -> None:
    from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint

    point = Datapoint("hand/1", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                      "hand", (1,))
    for kind in ("llm", "llm-workflow?mode=assisted", "llm-workflow?mode=seed"):
        name, _, opts = kind.partition("?")
        alice = f"{name}:{S}/dond-bad" + (f"?{opts}" if opts else "")
        asyncio.run(play_datapoint(point, [alice, f"llm:{S}/dond"], rounds=4, seed=1))


def _deliberation(stub: StubServer) -> None:
    from accord.domains.deliberation import DOMAIN

    for setting, n, tools in (("menu-numeric", 2, False), ("task-allocation", 3, True),
                              ("menu-semantic", 2, False)):
        agents = tuple(parse_agent_spec(f"llm:{S}/deliberation" + ("-bad" if i == 0 else ""))
                       for i in range(n))
        spec = EpisodeSpec("deliberation", setting, agents,
                           {"instance": 1, "tools": tools, "max_rounds": 3}, 0)
        res = asyncio.run(DOMAIN.run_episode(spec, RunContext(llm={})))
        assert res.status != "error", res.detail


def _task_exchange(stub: StubServer) -> None:
    from accord.domains.task_exchange import DOMAIN

    for strategy in ("utility-aware", "baseline"):
        agents = (parse_agent_spec(f"llm:{S}/task-exchange"),
                  parse_agent_spec(f"llm:{S}/task-exchange-bad"))
        spec = EpisodeSpec("task-exchange", "competitive", agents, {"strategy": strategy}, 0)
        asyncio.run(DOMAIN.run_episode(spec, RunContext(llm={})))
    # the scenario generators (A.1-A.2) on a 4-task universe, the first answer unusable
    from accord.domains.task_exchange import generate_scenario
    from accord.domains.task_exchange.load import DATA_DIR, load_task_list
    from accord.llm import LLMRuntime

    data = yaml.safe_load((DATA_DIR / "tasks.yaml").read_text())
    atomic = [dict(a, bit=i) for i, a in enumerate(data["atomic_tasks"][:2]
                                                   + data["atomic_tasks"][3:5])]
    mains = [{"id": "developer_job", "mask": "0011", "request": data["main_tasks"][0]["request"]},
             {"id": "engineer_trip", "mask": "1100", "request": data["main_tasks"][1]["request"]}]
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.yaml"
        small.write_text(yaml.safe_dump({"name": "small", "atomic_tasks": atomic,
                                         "main_tasks": mains}))
        _, atomic, mains = load_task_list(small)
    people = [{"role": "Alice", "main_task": "engineer_trip", "preference": "good at documents"},
              {"role": "Bob", "main_task": "developer_job", "preference": "a good time keeper"}]

    async def generate() -> None:
        rt = LLMRuntime()
        try:
            await generate_scenario(rt.client(f"{S}/generator-bad"), name="gen", atomic=atomic,
                                    main_tasks=mains, agents=people, title="generated")
        finally:
            await rt.aclose()

    asyncio.run(generate())


def _series(stub: StubServer) -> None:
    """A series with memory and an LLM critic, over the prompt variants of the negotiator
    (issue 29): the memory and critic templates, the variants' branches."""
    from accord.bench.series import SeriesRequest, run_series

    for variant in ("constraints=end&order=messages-first", "constraints=start"):
        agents = (parse_agent_spec(f"llm:{S}/negotiator?{variant}"), parse_agent_spec("boulware"))
        spec = EpisodeSpec("bargaining", "buyer-seller", agents, {"max_rounds": 4}, 0)
        _, played = run_series(SeriesRequest(spec, 2, critic=f"llm:{S}/coach"), {})
        assert played[1].memory and played[0].feedback


def _llm_deliberation(stub: StubServer) -> None:
    """An LLM-Deliberation game (issue 26) with six LLM parties, once per incentive: the
    voting rules, the game's briefing and every persona (the fixture's base game with its
    Environmental League made targeted, then untargeted, adversarial)."""
    import shutil

    from accord.domains.bargaining import parse_scenario, run_negotiation
    from accord.formats.registry import import_path

    base = Path(__file__).parent / "formats/fixtures/llm_deliberation/base"
    league = "Environmental League,enviroment,player,greedy"
    for incentive, mayor in (("targeted_adv", "target"), ("untargeted_adv", "player")):
        with tempfile.TemporaryDirectory() as tmp:
            game = Path(tmp) / "game"
            shutil.copytree(base, game)
            config = (game / "config.txt").read_text()
            config = config.replace(league, league.replace("greedy", incentive))
            config = config.replace("Mayor,mayor,player", f"Mayor,mayor,{mayor}")
            (game / "config.txt").write_text(config)
            scenario = parse_scenario(import_path("llm-deliberation", str(game)).data,
                                      str(game))
            asyncio.run(run_negotiation(scenario, [f"llm:{S}/negotiator"] * 6,
                                        params={"max_rounds": 2}, seed=0))


def _policies() -> dict[str, Any]:
    from accord.domains.task_exchange.stub import TaskExchangePolicy

    return {
        "games": "games", "games-bad": FaultyPolicy("malformed", times=1, inner="games"),
        "negotiator": "negotiator",
        "coach": ScriptedPolicy(["Open higher next time. Concede more slowly."], cycle=True),
        "negotiator-bad": FaultyPolicy("malformed", times=1, inner="negotiator"),
        "leak": ScriptedPolicy(["<VERDICT>NO_LEAK</VERDICT><REASON>fine</REASON>"], cycle=True),
        "judge": ScriptedPolicy(["no idea", "<VERDICT>continue</VERDICT><REASON>moving</REASON>"],
                                cycle=True),
        "mediator": ScriptedPolicy(['<PROPOSAL>{"alice_share": 5}</PROPOSAL>'
                                    "<RATIONALE>split the difference</RATIONALE>"], cycle=True),
        "stagnation": "stagnation",
        "structured": ScriptedPolicy(['{"move": "walk", "package": {}, "message": "no"}'],
                                     cycle=True),
        "dond": "dond", "dond-bad": FaultyPolicy("malformed", times=1, inner="dond"),
        "deliberation": "deliberation",
        "deliberation-bad": FaultyPolicy("malformed", times=1, inner="deliberation"),
        "chatty": Chatty("negotiator"),
        "generator-bad": FirstUnusable("task-exchange-generator", "  "),
        "games-wf-bad": FirstUnusable("games"),
        "task-exchange": "task-exchange",
        "task-exchange-bad": TaskExchangePolicy(mistakes="OVL"),
        "dond-json": ScriptedPolicy(['{"move": "offer", "deal": {"book": 1, "hat": 0, '
                                     '"ball": 3}, "message": "Hi."}'], cycle=True),
        "tx-json": ScriptedPolicy(['{"consider": "plan", "move": "reject", "message": "m", '
                                   '"proposal": {}}'], cycle=True),
        "deliberation-json": ScriptedPolicy([DELIBERATION_JSON], cycle=True),
    }


#: one JSON reply that fits every deliberation module's structured schema well enough
DELIBERATION_JSON = ('{"total_ingredients": {}, "overall_preference": {}, '
                     '"private_resources": {}, "public_resources": {}, "efficiency": {}, '
                     '"tool": "none", "menu_proposal": {}, "allocation": {}, '
                     '"accept_decision": false, "finalize": false, "explanation": "why", '
                     '"message": "hello"}')


def _structured(stub: StubServer) -> None:
    """Structured output in every domain and role not run above (notes, JSON feedback)."""
    from accord.domains.bargaining import resolve_scenario, run_negotiation
    from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
    from accord.domains.deliberation import DOMAIN as DELIBERATION
    from accord.domains.task_exchange import DOMAIN as TASK_EXCHANGE

    json_mode = "structured=json_schema"
    asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"], params={
        "max_rounds": 2, "stagnation_rounds": 0, "judge": f"llm:{S}/judge?{json_mode}"}))
    point = Datapoint("hand/1", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                      "hand", (1,))
    for kind in ("llm", "llm-workflow"):
        asyncio.run(play_datapoint(point, [f"{kind}:{S}/dond-json?{json_mode}", "greedy"],
                                   rounds=2, seed=1))
    agents = (parse_agent_spec(f"llm:{S}/tx-json?{json_mode}"), parse_agent_spec("selfish"))
    asyncio.run(TASK_EXCHANGE.run_episode(EpisodeSpec(
        "task-exchange", "competitive", agents, {"strategy": "utility-aware"}, 0),
        RunContext(llm={})))
    for setting, n, tools in (("menu-numeric", 2, False), ("task-allocation", 3, True)):
        team = tuple(parse_agent_spec(f"llm:{S}/deliberation-json?{json_mode}")
                     for _ in range(n))
        spec = EpisodeSpec("deliberation", setting, team,
                           {"instance": 1, "tools": tools, "max_rounds": 2}, 0)
        asyncio.run(DELIBERATION.run_episode(spec, RunContext(llm={})))


RUNS = (_games, _bargaining, _deal_or_no_deal, _deliberation, _task_exchange, _structured,
        _series, _llm_deliberation)


@pytest.fixture(scope="module")
def rendered() -> Iterator[tuple[Recorder, list[tuple[str, str]]]]:
    """Run every domain's LLM sessions once; yield the renders and the messages sent."""
    mp = pytest.MonkeyPatch()
    rec = Recorder()
    rec.install(mp)
    try:
        with StubServer(policies=_policies()) as stub:
            mp.setenv("STUB_BASE_URL", stub.base_url)
            mp.setenv("STUB_API_KEY", "sk-render-check")
            for run in RUNS:
                run(stub)
            sent = [(f"{r.model}: {m['role']} message", str(m["content"]))
                    for r in stub.completion_requests for m in r.messages
                    if m["role"] != "assistant"]
        yield rec, sent
    finally:
        mp.undo()


def test_every_prompt_template_is_rendered_by_the_check(rendered: Any) -> None:
    rec, _ = rendered
    used = {str(Path(f).resolve().relative_to(SRC)) for f in rec.loaded
            | {f for f, _ in rec.renders if f.startswith("/")}
            if Path(f).resolve().is_relative_to(SRC)}
    missing = template_files() - used
    assert not missing, f"templates no check renders: {sorted(missing)}"


def test_no_rendered_template_glues_sentences_or_list_items(rendered: Any) -> None:
    rec, _ = rendered
    found = {f"{Path(name).name}: {d}" for name, text in rec.renders for d in defects(text)}
    assert not found, "\n".join(sorted(found))


def test_no_message_a_model_receives_glues_sentences_or_list_items(rendered: Any) -> None:
    _, sent = rendered
    assert len(sent) > 50
    found = {f"{who}: {d}" for who, text in sent for d in defects(text)}
    assert not found, "\n".join(sorted(found))
