"""A rule-based Stagnation Scorer that reads the scorer's prompt text as a model would.

It answers the prompts of :class:`accord.agents.llm_stagnation.LLMStagnationScorer` with
no machine-readable block: from the system prompt it reads the number of rounds K
("whether the last K rounds"), the threshold ε ("further than ε from"/"more than ε of")
and the issues with their values in order ("- issue: v1, v2, ..."); from the last user
message it reads the offer lines ("- round R, PARTY: {json}"). A party *moved* in a
round when, on some issue, its offer is more than ε (in the normalised per-issue
distance the prompt describes) away from its own previous offer; the answer is
``STAGNANT`` when nobody moved in the last K rounds, else ``MOVING``.
"""

from __future__ import annotations

import json
import re

from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

_ROUNDS = re.compile(r"whether the last (\d+) rounds")
_EPS = re.compile(r"(?:further than|more than) ([0-9.eE+-]+) (?:from|of)")
_ISSUE = re.compile(r"^- ([^:\n]+): (.+)$", re.M)
_OFFER = re.compile(r"^- round (\d+), ([^:\n]+): (\{.*\})$", re.M)


@register_policy("stagnation")
class StagnationPolicy(Policy):
    """STAGNANT when no offer in the last K rounds moved beyond ε on any issue."""

    name = "stagnation"

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read rule, issues and offers from the prompt text; answer one word."""
        system = request.system()
        rounds, eps = _ROUNDS.search(system), _EPS.search(system)
        if rounds is None or eps is None:
            raise PolicyError("stagnation policy: the system prompt states no 'last K rounds' "
                              "or no threshold")
        head = system.split("ISSUES", 1)[-1]
        issues = {m.group(1).strip(): [v.strip() for v in m.group(2).split(",")]
                  for m in _ISSUE.finditer(head)}
        offers = [(int(r), p.strip(), json.loads(pkg))
                  for r, p, pkg in _OFFER.findall(request.last("user"))]
        k, epsilon = int(rounds.group(1)), float(eps.group(1))
        if not offers:
            raise PolicyError("stagnation policy: no offer lines in the last user message")
        last = sorted({r for r, _, _ in offers})[-k:]
        prev: dict[str, dict[str, object]] = {}
        moved = False
        for rnd, party, pkg in offers:
            before = prev.get(party)
            if before is not None and rnd in last:
                for issue, values in issues.items():
                    span = max(1, len(values) - 1)
                    try:
                        d = abs(values.index(str(pkg[issue])) - values.index(str(before[issue])))
                    except (KeyError, ValueError) as exc:
                        raise PolicyError(f"stagnation policy: offer {pkg} does not match the "
                                          f"issues {list(issues)}") from exc
                    moved = moved or d / span > epsilon
            prev[party] = pkg
        return Reply(f"<VERDICT>{'MOVING' if moved else 'STAGNANT'}</VERDICT>")
