"""The share format in which deliberation agents pass their private observations on.

Facts are small JSON lists: ``["ingredients", "egg", 4]``, ``["guest_scores", "Alice",
"Pad Thai", 31.2]``, ``["persona", "Alice", "Food Allergies", ["Nuts"]]``,
``["private_resources", "agent_0", "Time", 6.5]``, ``["public_fragment", "agent_0",
"Budget", 80]``, ``["efficiency", "agent_0", "Literature review", 0.8]``. A share message
is the JSON text ``{"share": [facts...], "part": k, "parts": n}``; messages are packed to
fit the protocol's character limit, so a long observation goes out over several turns.

One module for the code agents (:mod:`.agents.knowledge`) and the stub policy
(:mod:`.stub`), so LLM and code agents understand each other. It imports nothing heavy:
the stub policy loads it inside the mock provider.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def observation_facts(private: Mapping[str, Any], role: Any) -> list[list[Any]]:
    """The facts of ``role``'s private observation (``DeliberationObservation.private``)."""
    facts: list[list[Any]] = [["ingredients", i, a] for i, a in
                              (private.get("ingredients") or {}).items()]
    for guest, row in (private.get("guest_scores") or {}).items():
        facts += [["guest_scores", guest, d, v] for d, v in row.items()]
    for guest, fields in (private.get("guests") or {}).items():
        facts += [["persona", guest, f, v] for f, v in fields.items()]
    for agent, row in (private.get("private_resources") or {}).items():
        facts += [["private_resources", agent, r, v] for r, v in row.items()]
    kind = "public_total" if private.get("public_is_total") else "public_fragment"
    facts += [[kind, role, r, v] for r, v in (private.get("public_resources") or {}).items()]
    for agent, row in (private.get("efficiency") or {}).items():
        facts += [["efficiency", agent, t, v] for t, v in row.items()]
    return facts


def pack_messages(facts: list[list[Any]], max_chars: int) -> list[str]:
    """Pack facts into share messages of at most ``max_chars`` characters each.

    A single fact too long for any message is sent alone (and will be truncated).
    """
    chunks: list[list[list[Any]]] = [[]]
    for fact in facts:
        trial = [*chunks[-1], fact]
        if chunks[-1] and len(_render(trial, 99, 99)) > max_chars:
            chunks.append([fact])
        else:
            chunks[-1] = trial
    n = len(chunks)
    return [_render(c, i + 1, n) for i, c in enumerate(chunks)]


def _render(facts: list[list[Any]], part: int, parts: int) -> str:
    return json.dumps({"share": facts, "part": part, "parts": parts}, separators=(",", ":"),
                      ensure_ascii=False)


def parse_share(text: str) -> tuple[list[list[Any]], int, int] | None:
    """Facts, part and parts of a share message, or None if the text is not one."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("share"), list):
            return None
        facts = [f for f in data["share"] if isinstance(f, list) and len(f) >= 3]
        return facts, int(data.get("part", 1)), int(data.get("parts", 1))
    except (ValueError, TypeError, OverflowError, RecursionError):  # not a share message
        return None
