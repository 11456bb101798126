"""Prompts of the LLM scaffold: template contexts, the TASK_DATA block, step data, dialog.

Every module session is set up once with ``<module>_system.j2``: general task
information in words (the agent's name, the team and its leader, the rules of the
setting, the SETTING paragraph with the mode, the rounds and the message limit), one
``<TASK_DATA>{json}</TASK_DATA>`` block with only the data a model needs as data
(``"shared"``: the instance's dishes, recipes and guests or tasks, requirements and
resource types; ``"observation"``: the agent's own or the merged observation), then the
module's step, its tools, its output format and the rules again at the end. Each call
appends one user message rendered from ``<module>_turn.j2``, ``tool_result.j2`` or
``feedback.j2``; each states the data of that step in words, the way seed 001's module
templates (Tables 10-13) do (``_state.j2``: "Now is round r of the total R rounds.",
"Here is your current estimation: {json}", "Your latest proposal is: ...", "The latest
proposal from NAME is: ...", "You rejected NAME's proposal, because: ..."), with no
machine-readable state block. Dialog lines quote what agents said inside
``<COUNTERPART_TEXT from="NAME">`` (angle brackets neutralised), so a partner's text is
never read as instructions. The rule-based stub policy
:mod:`accord.domains.deliberation.stub` reads these same sentences, as a model would.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.guards import quote_counterpart
from accord.agents.templates import render
from accord.domains.deliberation.protocol import DeliberationObservation

MODULES: tuple[str, ...] = ("observation", "planning", "decision", "conversation")
"""The scaffold's modules, in the order they run within a turn (paper Figure 2)."""
PACKAGE = "accord.domains.deliberation"
"""Where the prompt templates live (``prompts/``)."""


def dump(obj: Any) -> str:
    """Compact JSON for prompts, with ``<`` and ``>`` escaped so no tag can be forged."""
    text = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


TASK_DATA_KEYS: tuple[str, ...] = ("shared", "observation")
"""The keys of the ``<TASK_DATA>`` object: the instance data a model needs as data."""
IN_WORDS: tuple[str, ...] = ("setting", "agents", "leader")
"""Keys of the shared information the system prompt states in words, left out of
``TASK_DATA.shared`` (the task's rules name the setting, the intro the team and leader)."""


def task_data(obs: DeliberationObservation) -> dict[str, Any]:
    """The ``<TASK_DATA>`` object: the shared instance data and the agent's observation.

    Everything else the agent must know (its name, the team and the leader, the setting
    and mode, whether the observation is merged, the rounds, the message limit, its step
    and its tools) the system prompt says in words; nothing in the block exists only for
    a parser.
    """
    shared = {k: v for k, v in obs.shared.items() if k not in IN_WORDS}
    return {"shared": shared, "observation": dict(obs.private)}


def table(obs: DeliberationObservation) -> dict[str, Any] | None:
    """The proposal on the table when another agent made it: ``{"by", "proposal"}``."""
    if obs.current is None or obs.current[0] == obs.role:
        return None
    return {"by": obs.current[0], "proposal": obs.current[1]}


def state(obs: DeliberationObservation, module: str, **extra: Any) -> dict[str, Any]:
    """The data of one call (``extra`` adds module data such as the estimate)."""
    out: dict[str, Any] = {"module": module, "round": obs.round, "max_rounds": obs.max_rounds,
                           "last_round": obs.round >= obs.max_rounds, "mode": obs.mode}
    out.update(extra)
    return out


def words(state_data: Mapping[str, Any]) -> dict[str, Any]:
    """The template context of ``_state.j2``: the step's data with its values as JSON."""
    st = dict(state_data)
    tb = st.get("table") or None
    verdict = st.get("decision") or {}
    return {
        "module": st.get("module"), "mode": st.get("mode"), "round": st.get("round"),
        "max_rounds": st.get("max_rounds"), "last_round": bool(st.get("last_round")),
        "estimate": dump(st["estimate"]) if st.get("estimate") else None,
        "my_proposal": dump(st["my_proposal"]) if st.get("my_proposal") is not None else None,
        "table": dump(tb["proposal"]) if tb else None, "table_by": tb["by"] if tb else None,
        "can_accept": bool(st.get("can_accept", True)),
        "rejected": verdict.get("explanation") if tb and verdict and
        not verdict.get("accept_decision") else None,
        "tools_left": int(st.get("tools_left") or 0),
    }


def dialog_lines(obs: DeliberationObservation, start: int) -> list[str]:
    """Readable lines for the utterances from index ``start`` on, texts quoted as data."""
    lines = []
    for u in obs.dialog[start:]:
        head = f"[round {u.round}] {u.speaker}" + (" (you)" if u.speaker == obs.role else "")
        if u.kind == "offer":
            head += f" proposed {dump(u.proposal)}"
        elif u.kind == "accept":
            head += f" accepted the proposal on the table {dump(u.proposal)}"
        elif u.kind == "decide":
            head += f" made the final decision {dump(u.proposal)}"
        if u.truncated:
            head += " (message truncated)"
        text = quote_counterpart(u.speaker, u.text) if u.text else "(no message)"
        lines.append(f"{head}: {text}")
    return lines


def _context(obs: DeliberationObservation, tool_use: str | None, max_tool_calls: int
             ) -> dict[str, Any]:
    shared = obs.shared
    team = list(shared.get("agents") or obs.parties)
    leader = shared.get("leader")
    task = obs.setting == "task-allocation"
    return {
        "role": obs.role, "setting": obs.setting, "mode": obs.mode, "merged": obs.merged,
        "team": team, "leader": leader, "workers": [a for a in team if a != leader],
        "partners": [p for p in obs.parties if p != obs.role],
        "guests": list(shared.get("guests") or []),
        "max_rounds": obs.max_rounds, "max_chars": obs.max_chars,
        "tool_use": tool_use if obs.tools else None, "max_tool_calls": max_tool_calls,
        "proposal_example": dump({"task name": team[0]} if task else ["dish_1", "dish_2"]),
    }


def system_prompt(module: str, obs: DeliberationObservation, tool_use: str | None,
                  max_tool_calls: int) -> str:
    """The system prompt of ``module``'s session (set once per episode)."""
    if module not in MODULES:
        raise ValueError(f"unknown scaffold module {module!r}; expected one of {MODULES}")
    ctx = _context(obs, tool_use, max_tool_calls)
    ctx["task_data"] = dump(task_data(obs))
    return render(f"{module}_system.j2", PACKAGE, **ctx)


def turn_prompt(module: str, obs: DeliberationObservation, lines: Sequence[str],
                state_data: Mapping[str, Any],
                tool_results: Sequence[Mapping[str, Any]] = ()) -> str:
    """The user message that starts ``module``'s step in this turn."""
    return render(f"{module}_turn.j2", PACKAGE, round=obs.round, max_rounds=obs.max_rounds,
                  mode=obs.mode, role=obs.role, leader=obs.shared.get("leader"),
                  setting=obs.setting, lines=list(lines), said=bool(obs.dialog),
                  s=words(state_data), tool_results=[dump(r) for r in tool_results])


def tool_result_prompt(result: Mapping[str, Any], calls_left: int,
                       state_data: Mapping[str, Any]) -> str:
    """The user message carrying one tool result back to the model."""
    return render("tool_result.j2", PACKAGE, result=dump(dict(result)), calls_left=calls_left,
                  s=words(state_data))


def feedback_prompt(reason: str, feedback: str, attempt: int,
                    state_data: Mapping[str, Any]) -> str:
    """The user message asking the model to answer again after an unusable reply."""
    return render("feedback.j2", PACKAGE, reason=reason, feedback=feedback, attempt=attempt,
                  s=words(state_data))
