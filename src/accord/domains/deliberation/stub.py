"""A rule-based deliberator that answers the LLM deliberation scaffold's prompts.

It lets whole deliberations (menu-numeric, menu-semantic, task allocation; partial or
merged observations; centralized) run end to end over real HTTP with no model. It reads
what :mod:`accord.domains.deliberation.llm` puts in its prompts, the same text a
model gets, and reads it as a model would: from the sentences.

The system prompt (once per module session) states who and where the agent is in words
(``_intro.j2`` and the module's step, after seed 001's Tables 10-13); the policy reads::

    You are an AI agent named NAME ...                   # the role
    ... in a 3-agent team: A, B are workers and L is the leader.   # task allocation:
    ... The user asked you and A to design a menu ...    #   the team / menu: the partners
    The team must allocate tasks to its agents ...       # setting task-allocation
    - The preferences, at this stage, are numerical scores ...     # menu-numeric
    - The preferences are not given as numbers ...       # menu-semantic
    SETTING: you are the only decision maker. ...        # mode single (merged)
    SETTING: your observation below is ... perfectly merged; ...   # merged observation
    Only the leader (L) can end the deliberation, ...    # mode leader, the leader
    The deliberation ends as soon as an agent accepts ...  # mode symmetric
    ... and can say up to C characters; ...              # the message limit
    YOUR STEP: STATE ESTIMATION | PLANNING | FINAL DECISION | DECISION | CONVERSATION.
    TOOLS. Before you answer you may call a tool. ...    # tools "call"
    TOOLS. The Solver ... are run for you ...            # tools "auto"

A sentence the policy needs and does not find is a :class:`PolicyError`. The data a model
needs as data comes in one ``<TASK_DATA>{json}</TASK_DATA>`` block with exactly two keys::

    {"shared": {...},        # dishes, recipes, guests | tasks, requirements,
                             #   public_resource_types, private_resource_types
     "observation": {...}}   # the agent's private observation (DeliberationObservation.private)

Every user message states the data of its step in words, as seed 001's module templates
do (the last occurrence of each line in the last user message is read; values are JSON)::

    Now is round r of the total R rounds.[ This is the last round.]
    Here is your current estimation: {...}              # planning / decision / conversation
    Your latest proposal is: [...] | {...}               # decision / conversation
    The latest proposal from NAME is: [...] | {...}      # another agent's proposal
    (Accepting it is not possible at this step.)         # decision, when accept is illegal
    You rejected NAME's proposal, because: TEXT          # conversation
    Tool calls left in this step: n.                     # tools "call"

A leader (the agent named in "Only the leader (L) ...") may finalize.

Dialog lines quote each utterance as ``<COUNTERPART_TEXT from="NAME">text</COUNTERPART_TEXT>``
(``<``/``>`` in the text replaced by ``‹``/``›``); the policy reads them from every user
message of the session. Tool outputs arrive as ``<TOOL_RESULT>{json}</TOOL_RESULT>`` (the
outputs of :mod:`accord.domains.deliberation.agent_tools`) in the last user message.

Shared information travels in the code agents' share format, so LLM and code agents
understand each other: ``{"share": [fact, ...], "part": k, "parts": n}`` with facts
``["ingredients", name, amount]``, ``["guest_scores", guest, dish, value]``,
``["persona", guest, field, value]``, ``["private_resources", agent, resource, amount]``,
``["public_fragment", agent, resource, amount]``, ``["public_total", agent, resource,
amount]`` and ``["efficiency", agent, task, value]``, packed to the character limit.

Behaviour per module (replies in the scaffold's tags, with a short ``<THINK>``):

* observation: own observation plus every fact heard -> ``<ESTIMATE>``: menu totals are the
  union of the ingredient parts; numeric preferences sum the known guests' scores;
  semantic preferences give every guest a neutral ``rating`` (default 2.75) times
  ``n + 0.2 n^1.5``; task allocation sums the public fragments heard;
* planning: with tools ``call`` and calls left it calls the Solver, then proposes the
  Solver's decision; with ``auto`` it proposes the Solver's decision from the prompt;
  without tools it proposes a greedy plan (best value first, kept while feasible on the
  estimate);
* decision: with tools ``call`` it first checks the table's proposal with the Calculator.
  It accepts a proposal that is feasible on its estimate and at least as good as its own
  once it has heard every partner's whole observation (or, symmetric, any feasible one in
  the last round). A leader that does not accept finalizes its own plan once it has heard
  everything or in the last round;
* conversation: the next part of its own observation not yet sent, then a line about its
  proposal (and why it did not accept).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.domains.deliberation.share import observation_facts, pack_messages, parse_share
from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

TASK_DATA_RE = re.compile(r"<TASK_DATA>(.*?)</TASK_DATA>", re.S)
_ROUND = re.compile(r"Now is round (\d+) of the total (\d+) rounds\.")
_TABLE = re.compile(r"The latest proposal from (\S+) is: ")
_REJECTED = re.compile(r"^You rejected \S+'s proposal, because: (.*)$", re.M)
_TOOLS_LEFT = re.compile(r"Tool calls left in this step: (\d+)\.")
TOOL_RESULT_RE = re.compile(r"<TOOL_RESULT>(.*?)</TOOL_RESULT>", re.S)
QUOTE_RE = re.compile(r'<COUNTERPART_TEXT from="([^"]*)">(.*?)</COUNTERPART_TEXT>', re.S)
# the system prompt's sentences (see the module docstring)
_NAME = re.compile(r"^You are an AI agent named ([^\s,]+?)(?=[\s,]|\.(?:\s|$))", re.M)
_TEAM = re.compile(r": ([^:\n]+?) (?:is a worker|are workers) and (\S+) is the leader\b")
_PARTNERS = re.compile(r"The user asked you(?: and ([^\n]+?))? to design a menu")
_LEADER = re.compile(r"^Only the leader \((\S+)\) can end the deliberation\b", re.M)
_CHARS = re.compile(r"can say up to (\d+) characters")
_MERGED = re.compile(r"^SETTING: [^\n]*perfectly merged", re.M)
_STEP = re.compile(r"^YOUR STEP: ([A-Z][A-Z ]*[A-Z])\.", re.M)
STEPS = {"STATE ESTIMATION": "observation", "PLANNING": "planning",
         "FINAL DECISION": "planning", "DECISION": "decision", "CONVERSATION": "conversation"}
"""The module of each step heading ("FINAL DECISION" is planning in single mode)."""
SETTINGS = (("The team must allocate tasks to its agents", "task-allocation"),
            ("- The preferences, at this stage, are numerical scores", "menu-numeric"),
            ("- The preferences are not given as numbers", "menu-semantic"))
MODES = (("SETTING: you are the only decision maker.", "single"),
         ("Only the leader (", "leader"),
         ("The deliberation ends as soon as an agent accepts", "symmetric"))
TOOL_USES = (("TOOLS. Before you answer you may call a tool.", "call"),
             ("TOOLS. The Solver (integer program) and the Calculator (feasibility check) "
              "are run for you", "auto"))
EPS = 1e-6


def _load(pattern: re.Pattern[str], text: str, what: str, where: str) -> Any:
    found = pattern.findall(text)
    if not found:
        raise PolicyError(f"deliberation policy: no <{what}>{{json}}</{what}> block in {where}")
    try:
        return json.loads(found[-1])
    except json.JSONDecodeError as exc:
        raise PolicyError(f"deliberation policy: <{what}> in {where} is not valid JSON: "
                          f"{exc}") from exc


def _json_after(text: str, label: str) -> Any:
    at = text.rfind(label)
    if at < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, at + len(label))[0]
    except json.JSONDecodeError as exc:
        raise PolicyError(f"deliberation policy: the value after {label!r} is not JSON: "
                          f"{exc}") from exc


def _first(pairs: tuple[tuple[str, str], ...], text: str) -> str | None:
    """The value of the first ``(sentence, value)`` pair whose sentence ``text`` contains."""
    return next((value for sentence, value in pairs if sentence in text), None)


def _names(listed: str) -> list[str]:
    """``"A, B and C"`` / ``"A, B"`` -> ``["A", "B", "C"]``."""
    return [n for part in listed.split(", ") for n in part.split(" and ") if n]


@dataclass(frozen=True)
class Setup:
    """Who and where the agent is, read from the words of a system prompt."""

    module: str
    role: str
    setting: str
    mode: str
    leader: str | None
    partners: tuple[str, ...]
    merged: bool
    max_chars: int | None
    tools: str | None
    shared: Mapping[str, Any]
    observation: Mapping[str, Any]


def step_module(system: str) -> str | None:
    """The module a system prompt sets up, from its "YOUR STEP: ..." heading."""
    found = _STEP.findall(system)
    return STEPS.get(found[0]) if found else None


def _need(value: Any, sentence: str) -> Any:
    if value is None:
        raise PolicyError(f"deliberation policy: no {sentence} in the system prompt")
    return value


def read_setup(system: str) -> Setup:
    """The session's setup from the system prompt's sentences and its ``<TASK_DATA>``."""
    data = _load(TASK_DATA_RE, system, "TASK_DATA", "the system prompt")
    if not isinstance(data, dict):
        raise PolicyError("deliberation policy: <TASK_DATA> is not a JSON object")
    system = TASK_DATA_RE.sub("", system)  # the sentences only, never words inside the data
    module = _need(step_module(system), "'YOUR STEP: ...' heading naming a known step")
    name = _need(_NAME.search(system), "'You are an AI agent named NAME' sentence")
    role = name.group(1)
    setting = _need(_first(SETTINGS, system), "sentence naming the task (allocate tasks, "
                    "or the preferences as numerical scores / not given as numbers)")
    mode = _need(_first(MODES, system), "'SETTING: you are the only decision maker.', "
                 "'Only the leader (L) can end ...' or 'The deliberation ends as soon as ...'")
    leader = None
    if mode == "leader":
        leader = _need(_LEADER.search(system), "'Only the leader (L) can end the "
                       "deliberation' sentence").group(1)
    if setting == "task-allocation":
        team = _TEAM.search(system)
        members = [*_names(team.group(1)), team.group(2)] if team else []
    else:
        menu = _PARTNERS.search(system)
        members = _names(menu.group(1) or "") if menu else []
    if mode != "single" and not [m for m in members if m != role]:
        raise PolicyError("deliberation policy: no partners named in the system prompt "
                          "('... are workers and L is the leader' / 'The user asked you "
                          "and A to design a menu')")
    chars = _CHARS.search(system)
    return Setup(module=module, role=role, setting=setting, mode=mode, leader=leader,
                 partners=tuple(m for m in members if m != role),
                 merged=mode == "single" or _MERGED.search(system) is not None,
                 max_chars=int(chars.group(1)) if chars else None,
                 tools=_first(TOOL_USES, system),
                 shared=data.get("shared") or {}, observation=data.get("observation") or {})


def read_state(text: str, setup: Setup) -> dict[str, Any]:
    """The step data one user message states in words (see the module docstring)."""
    found = list(_ROUND.finditer(text))
    if not found:
        raise PolicyError("deliberation policy: no 'Now is round r of the total R rounds.' "
                          "in the last user message")
    rnd, cap = int(found[-1].group(1)), int(found[-1].group(2))
    table = None
    tables = list(_TABLE.finditer(text))
    if tables:
        last = tables[-1]
        try:
            proposal = json.JSONDecoder().raw_decode(text, last.end())[0]
        except json.JSONDecodeError as exc:
            raise PolicyError(f"deliberation policy: the proposal on the table is not JSON: "
                              f"{exc}") from exc
        table = {"by": last.group(1), "proposal": proposal}
    rejected = list(_REJECTED.finditer(text))
    tools = list(_TOOLS_LEFT.finditer(text))
    return {
        "module": setup.module, "round": rnd, "max_rounds": cap,
        "last_round": "This is the last round." in text or rnd >= cap,
        "estimate": _json_after(text, "Here is your current estimation: "),
        "my_proposal": _json_after(text, "Your latest proposal is: "),
        "table": table,
        "can_accept": table is not None and
        "(Accepting it is not possible at this step.)" not in text,
        "can_finalize": setup.mode == "leader" and setup.leader == setup.role,
        "tools_left": int(tools[-1].group(1)) if tools else 0,
        "decision": {"explanation": rejected[-1].group(1)} if rejected else None,
    }


def own_facts(observation: Mapping[str, Any], role: str) -> list[list[Any]]:
    """The agent's observation (``TASK_DATA.observation``) as share facts."""
    return observation_facts(dict(observation), role)


@dataclass
class Heard:
    """Facts heard from others, their share parts, and the parts this agent sent."""

    facts: list[list[Any]] = field(default_factory=list)
    parts: dict[str, set[int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    sent: set[int] = field(default_factory=set)


def heard(request: PolicyRequest, role: str) -> Heard:
    """Every share message quoted in the session's user messages."""
    out = Heard()
    for m in request.messages:
        if m.get("role") != "user":
            continue
        for speaker, text in QUOTE_RE.findall(str(m.get("content", ""))):
            share = parse_share(text.replace("‹", "<").replace("›", ">"))
            if share is None:
                continue
            facts, part, parts = share
            if speaker == role:
                out.sent.add(part)
                continue
            out.facts += facts
            out.parts.setdefault(speaker, set()).add(part)
            out.totals[speaker] = parts
    return out


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


class _View:
    """One request as the policy sees it."""

    def __init__(self, request: PolicyRequest) -> None:
        self.setup = read_setup(request.system())
        last = request.last("user")
        self.state = read_state(last, self.setup)
        try:
            found = [json.loads(b) for b in TOOL_RESULT_RE.findall(last)]
        except json.JSONDecodeError as exc:
            raise PolicyError(f"deliberation policy: a <TOOL_RESULT> is not valid JSON: "
                              f"{exc}") from exc
        self.results = [r for r in found if isinstance(r, dict)]
        self.role = self.setup.role
        self.setting = self.setup.setting
        self.task = self.setting == "task-allocation"
        self.shared = self.setup.shared
        self.obs = self.setup.observation
        self.heard = heard(request, self.role)

    def complete(self) -> bool:
        """Merged observation, or every partner's whole observation has been heard."""
        if self.setup.merged:
            return True
        return all(p in self.heard.totals and len(self.heard.parts.get(p, ())) >=
                   self.heard.totals[p] for p in self.setup.partners)

    def calls_left(self) -> bool:
        """Whether the model may call a tool now (and has no result to read yet)."""
        return (self.setup.tools == "call" and int(self.state.get("tools_left") or 0) > 0
                and not self.results)


def estimate(v: _View, rating: float) -> dict[str, Any]:
    """The state estimate from the observation and the facts heard."""
    if v.task:
        private = {a: dict(r) for a, r in (v.obs.get("private_resources") or {}).items()}
        eff = {a: dict(r) for a, r in (v.obs.get("efficiency") or {}).items()}
        frags = {v.role: dict(v.obs.get("public_resources") or {})}
        totals: dict[str, float] = dict(frags[v.role]) if v.obs.get("public_is_total") else {}
        for f in v.heard.facts:
            if len(f) < 4 or (x := _num(f[3])) is None:
                continue
            table = {"private_resources": private, "efficiency": eff,
                     "public_fragment": frags}.get(str(f[0]))
            if table is not None:
                table.setdefault(str(f[1]), {})[str(f[2])] = x
            elif f[0] == "public_total":
                totals[str(f[2])] = x
        public = totals or {}
        if not totals:
            for frag in frags.values():
                for r, x in frag.items():
                    public[r] = round(public.get(r, 0.0) + x, 6)
        return {"public_fragments": frags, "private_resources": private,
                "public_resources": public, "efficiency": eff}
    own = dict(v.obs.get("ingredients") or {})
    partner: dict[str, float] = {}
    scores = {g: dict(r) for g, r in (v.obs.get("guest_scores") or {}).items()}
    told: dict[str, dict[str, float]] = {}
    for f in v.heard.facts:
        if f[0] == "ingredients" and (x := _num(f[2])) is not None:
            partner[str(f[1])] = x
        elif f[0] == "guest_scores" and len(f) >= 4 and (x := _num(f[3])) is not None:
            scores.setdefault(str(f[1]), {})[str(f[2])] = x
            told.setdefault(str(f[1]), {})[str(f[2])] = x
    recipes = v.shared.get("recipes") or {}
    if v.setting == "menu-numeric":
        overall = {d: round(sum(r.get(d, 0) for r in scores.values()), 4) for d in recipes}
        partner_pref = {d: round(sum(r.get(d, 0) for r in told.values()), 4) for d in recipes}
    else:
        guests = len(v.shared.get("guests") or [1])
        overall = {d: round(guests * rating * (len(r) + 0.2 * len(r) ** 1.5), 4)
                   for d, r in recipes.items()}
        partner_pref = {}
    return {"partner_ingredients": partner, "partner_preference": partner_pref,
            "total_ingredients": {**partner, **own}, "overall_preference": overall}


def judge(v: _View, est: Mapping[str, Any], proposal: Any) -> tuple[bool, float]:
    """Feasibility and value of ``proposal`` on the estimate."""
    if v.task:
        if not isinstance(proposal, Mapping):
            return False, 0.0
        public = set(v.shared.get("public_resource_types") or [])
        need: dict[tuple[str, str], float] = {}
        value = 0.0
        for t, a in proposal.items():
            req = (v.shared.get("requirements") or {}).get(t)
            if req is None:
                return False, 0.0
            for r, x in req.items():
                key = ("", r) if r in public else (str(a), r)
                need[key] = need.get(key, 0.0) + float(x)
            value += float((est.get("efficiency") or {}).get(a, {}).get(t, 0.0))
        for (a, r), x in need.items():
            have = (est.get("public_resources") or {}).get(r, 0.0) if not a else \
                (est.get("private_resources") or {}).get(a, {}).get(r, 0.0)
            if x > float(have) + EPS:
                return False, value
        return True, value
    recipes = v.shared.get("recipes") or {}
    if not isinstance(proposal, list) or any(d not in recipes for d in proposal):
        return False, 0.0
    use: dict[str, float] = {}
    for d in proposal:
        for i, x in recipes[d].items():
            use[i] = use.get(i, 0.0) + float(x)
    stock = est.get("total_ingredients") or {}
    pref = est.get("overall_preference") or {}
    value = sum(float(pref.get(d, 0.0)) for d in proposal)
    return all(x <= float(stock.get(i, 0.0)) + EPS for i, x in use.items()), value


def greedy(v: _View, est: Mapping[str, Any]) -> Any:
    """Best value first, each kept while the plan stays feasible on the estimate."""
    if v.task:
        eff = est.get("efficiency") or {}
        pairs = sorted(((float(x), a, t) for a, row in eff.items() for t, x in row.items()
                        if t in (v.shared.get("requirements") or {})), key=lambda p: -p[0])
        alloc: dict[str, str] = {}
        for x, a, t in pairs:
            if x > 0 and t not in alloc and judge(v, est, {**alloc, t: a})[0]:
                alloc[t] = a
        return {t: alloc[t] for t in v.shared.get("tasks", []) if t in alloc}
    pref = est.get("overall_preference") or {}
    menu: list[str] = []
    for d in sorted(v.shared.get("recipes") or {}, key=lambda d: -float(pref.get(d, 0.0))):
        if judge(v, est, [*menu, d])[0]:
            menu.append(d)
    return menu


def _describe(proposal: Any) -> str:
    if isinstance(proposal, Mapping):
        return ", ".join(f"{t} -> {a}" for t, a in proposal.items()) or "nothing"
    return ", ".join(map(str, proposal or [])) or "nothing"


@register_policy("deliberation")
class DeliberationPolicy(Policy):
    """Rule-based deliberator for the scaffold's four modules (see the module docstring)."""

    name = "deliberation"

    def __init__(self, rating: float = 2.75) -> None:
        self.rating = float(rating)

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read the setup, the step's lines and the dialog; answer the module's step."""
        v = _View(request)
        handler = {"observation": self._observe, "planning": self._plan,
                   "decision": self._decide, "conversation": self._talk}[v.setup.module]
        return Reply(handler(v))

    def _observe(self, v: _View) -> str:
        est = estimate(v, self.rating)
        others = sorted(v.heard.totals)
        return (f"<THINK>Own observation plus facts heard from {others or 'nobody yet'}."
                f"</THINK>\n<ESTIMATE>{json.dumps(est)}</ESTIMATE>")

    def _plan(self, v: _View) -> str:
        solver = next((r for r in v.results if r.get("tool") == "solver" and "decision" in r),
                      None)
        if solver is None and v.calls_left():
            return ('<THINK>Let the Solver optimize my estimate.</THINK>\n'
                    '<TOOL>{"name": "solver"}</TOOL>')
        est = v.state.get("estimate") or {}
        plan, why = (solver["decision"], "the Solver's optimum on my estimate") if solver \
            else (greedy(v, est), "best value first while feasible on my estimate")
        key = "allocation" if v.task else "menu_proposal"
        body = json.dumps({key: plan, "explanation": why})
        return f"<THINK>Plan: {why}.</THINK>\n<PROPOSAL>{body}</PROPOSAL>"

    def _decide(self, v: _View) -> str:
        st = v.state
        tb = st.get("table")
        if tb and v.calls_left():
            call = json.dumps({"name": "calculator", "proposal": tb["proposal"]})
            return f"<THINK>Check the proposal on the table.</THINK>\n<TOOL>{call}</TOOL>"
        est = st.get("estimate") or {}
        ok, value = False, 0.0
        if tb:
            calc = next((r["proposal"] for r in v.results if r.get("tool") == "calculator"
                         and isinstance(r.get("proposal"), dict)), None)
            ok, value = (bool(calc.get("feasible")), float(calc.get("estimated_value", 0.0))) \
                if calc else judge(v, est, tb["proposal"])
        mine = judge(v, est, st.get("my_proposal"))[1]
        complete, last = v.complete(), bool(st.get("last_round"))
        accept = bool(tb) and bool(st.get("can_accept")) and ok and (
            (complete and value >= mine - EPS) or (last and v.setup.mode == "symmetric"))
        finalize = bool(st.get("can_finalize")) and not accept and (complete or last)
        why = ("the proposal is feasible and as good as mine on my estimate" if accept else
               "I have heard enough to decide" if finalize else
               "I still miss information" if not complete else
               "the proposal is infeasible or worse than mine on my estimate")
        body = json.dumps({"accept_decision": accept, "finalize": finalize, "explanation": why})
        return f"<THINK>Complete: {complete}; value {value:.2f} vs {mine:.2f}.</THINK>\n" \
               f"<DECISION>{body}</DECISION>"

    def _talk(self, v: _View) -> str:
        limit = _need(v.setup.max_chars, "'can say up to C characters' sentence")
        parts = [] if v.setup.merged else pack_messages(own_facts(v.obs, v.role), limit)
        todo = [i for i in range(1, len(parts) + 1) if i not in v.heard.sent]
        if todo:
            text = parts[todo[0] - 1]
        else:
            st = v.state
            text = f"I propose [{_describe(st.get('my_proposal'))}]."
            reason = (st.get("decision") or {}).get("explanation")
            if reason:
                text += f" I did not accept yours: {reason}."
            text = text[:limit]
        return f"<THINK>Share what the others still miss.</THINK>\n<MESSAGE>{text}</MESSAGE>"
