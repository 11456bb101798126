"""Reply policies for the stub server and the in-process ``mock`` provider.

A policy turns one chat request into one outcome: a :class:`Reply` (text, optional
delay, finish reason) or an :class:`HttpError` (status, headers such as
``Retry-After``). Policies never sleep or touch sockets themselves; the HTTP server
and the ``mock`` provider carry out the delay, so the same policy object serves a
threaded HTTP server and an asyncio client alike.

Policies are pluggable by name (DESIGN.md principle 10): :data:`POLICIES` maps a
name to a factory; :func:`register_policy` adds one (a domain registers its own
rule-based party, e.g. ``deal-or-no-deal``), :func:`make_policy` builds one. The
stub server routes a request to the policy named by its ``model`` field when no
policy was configured for that model explicitly.

Built-ins: ``echo``, ``scripted``, ``fixed-latency``, ``faulty``, ``drip`` (headers at
once, then the body a byte at a time), ``negotiator`` (in
:mod:`accord.domains.bargaining.stub`) and the shortcuts ``faulty-malformed``,
``faulty-unclosed``, ``faulty-invalid-json``, ``faulty-unknown-fields``,
``faulty-rate-limit``, ``faulty-server-error``, ``faulty-bad-request`` and ``slow``: one
fault (the first request of the server or mock backend), then the rule-based negotiator;
and ``always-<fault>`` for the same faults but ``delay`` (``always-bad-request``,
``always-server-error``, ``always-malformed``, ...): every request faulty, text faults
corrupting an echo of the request, for a role (a judge, a mediator) that must fail for good.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any, Literal

from accord.llm.policy import (  # noqa: F401  (re-exported)
    POLICIES,
    HttpError,
    Outcome,
    Policy,
    PolicyError,
    PolicyFactory,
    PolicyRequest,
    Reply,
    as_policy,
    make_policy,
    register_policy,
)

Fault = Literal[
    "malformed", "unclosed", "invalid-json", "unknown-fields", "rate-limit", "server-error",
    "bad-request", "delay",
]
FAULTS: tuple[str, ...] = (
    "malformed", "unclosed", "invalid-json", "unknown-fields", "rate-limit", "server-error",
    "bad-request", "delay",
)



@register_policy("echo")
class EchoPolicy(Policy):
    """Replies with the content of the last user message."""

    name = "echo"

    def respond(self, request: PolicyRequest) -> Outcome:
        """Echo the last user message."""
        return Reply(request.last("user"))


@register_policy("scripted")
class ScriptedPolicy(Policy):
    """Replies from a fixed list, in order; cycles, or errors once exhausted.

    Items are strings (reply texts) or ready :class:`Reply` / :class:`HttpError`
    outcomes, so a script can mix good answers with faults.
    """

    name = "scripted"

    def __init__(self, replies: Sequence[str | Outcome], cycle: bool = False) -> None:
        if not replies:
            raise PolicyError("scripted policy needs at least one reply")
        self.replies = [Reply(r) if isinstance(r, str) else r for r in replies]
        self.cycle = cycle
        self._next = 0
        self._lock = threading.Lock()

    def respond(self, request: PolicyRequest) -> Outcome:
        """The next scripted outcome; HTTP 400 once a non-cycling script is used up."""
        with self._lock:
            i = self._next
            self._next += 1
        if self.cycle:
            return self.replies[i % len(self.replies)]
        if i >= len(self.replies):
            return HttpError(400, f"stub scripted policy exhausted: all {len(self.replies)} "
                                  f"replies used, request #{i + 1} has none",
                             error_type="invalid_request_error")
        return self.replies[i]


@register_policy("fixed-latency")
class FixedLatencyPolicy(Policy):
    """Every answer takes exactly ``latency`` seconds; text from ``inner`` or a fixed reply."""

    name = "fixed-latency"

    def __init__(self, latency: float = 0.1, inner: Policy | str | None = None,
                 text: str = '<CONSIDER>hold</CONSIDER>\n<PROPOSAL>{"price": 50}</PROPOSAL>'
                 ) -> None:
        self.latency = float(latency)
        self.inner = None if inner is None else as_policy(inner)
        self.text = text

    def respond(self, request: PolicyRequest) -> Outcome:
        """The inner outcome (or the fixed text) delivered after ``latency`` seconds."""
        if self.inner is None:
            return Reply(self.text, delay=self.latency)
        out = self.inner.respond(request)
        if isinstance(out, Reply):
            return Reply(out.text, delay=self.latency, finish_reason=out.finish_reason)
        return HttpError(out.status, out.message, out.headers, self.latency, out.error_type)


_TAG_RE = re.compile(r"</?[A-Za-z_][\w-]*\s*/?>")
_PROPOSAL_RE = re.compile(r"(<PROPOSAL>)(.*?)(</PROPOSAL>)", re.S)
_CLOSE_RE = re.compile(r"</([A-Za-z_][\w-]*)>")
_SELF_CLOSE_RE = re.compile(r"<([A-Za-z_][\w-]*)\s*/>")


def corrupt(text: str, fault: str) -> str:
    """``text`` broken the way ``fault`` says (one of the text faults in :data:`FAULTS`).

    * ``malformed``: every tag removed, leaving bare prose;
    * ``unclosed``: the last closing tag removed (or the last ``<X/>`` turned into ``<X>``);
    * ``invalid-json``: the PROPOSAL body made invalid JSON (a trailing comma and a
      single-quoted key), or such a PROPOSAL appended when there is none;
    * ``unknown-fields``: an issue nobody negotiates (``"surprise"``) added to the
      PROPOSAL, or a PROPOSAL with only that issue appended.
    """
    if fault == "malformed":
        prose = " ".join(_TAG_RE.sub(" ", text).split())
        return prose or "I think we are close to a deal, what do you say?"
    if fault == "unclosed":
        closers = list(_CLOSE_RE.finditer(text))
        if closers:
            last = closers[-1]
            return text[: last.start()] + text[last.end():]
        selfs = list(_SELF_CLOSE_RE.finditer(text))
        if selfs:
            last = selfs[-1]
            return text[: last.start()] + f"<{last.group(1)}>" + text[last.end():]
        return text + "\n<PROPOSAL>{}"
    if fault == "invalid-json":
        m = _PROPOSAL_RE.search(text)
        if m is None:
            return text + "\n<PROPOSAL>{'price': 10,}</PROPOSAL>"
        body = m.group(2).strip()
        broken = "{'surprise': 1, " + body[1:-1] + ",}" if body.startswith("{") else body + ",}"
        return text[: m.start(2)] + broken + text[m.end(2):]
    if fault == "unknown-fields":
        m = _PROPOSAL_RE.search(text)
        try:
            data = json.loads(m.group(2)) if m else None
        except json.JSONDecodeError:
            data = None
        if m is None or not isinstance(data, dict):
            return text + '\n<PROPOSAL>{"surprise": "gift"}</PROPOSAL>'
        data["surprise"] = "gift"
        return text[: m.start(2)] + json.dumps(data) + text[m.end(2):]
    raise PolicyError(f"unknown text fault {fault!r}; known: malformed, unclosed, "
                      "invalid-json, unknown-fields")


@register_policy("faulty")
class FaultyPolicy(Policy):
    """Misbehaves ``times`` times (``None``: always), then answers like ``inner``.

    Text faults corrupt the inner reply (see :func:`corrupt`); ``rate-limit`` answers
    HTTP 429 with ``Retry-After: retry_after``; ``server-error`` answers HTTP 500;
    ``bad-request`` answers HTTP 400 (which clients do not retry); ``delay`` delivers the
    inner reply after ``delay`` seconds.
    """

    name = "faulty"

    def __init__(self, fault: str, times: int | None = None, inner: Policy | str = "echo",
                 retry_after: float | str = 1, delay: float = 1.0) -> None:
        if fault not in FAULTS:
            raise PolicyError(f"unknown fault {fault!r}; known faults: {', '.join(FAULTS)}")
        self.fault = fault
        self.times = times
        self.inner = as_policy(inner)
        self.retry_after = retry_after
        self.delay = float(delay)
        self._count = 0
        self._lock = threading.Lock()

    def respond(self, request: PolicyRequest) -> Outcome:
        """A fault while faults remain, then the inner outcome."""
        with self._lock:
            faulty = self.times is None or self._count < self.times
            self._count += 1
        if self.fault == "rate-limit" and faulty:
            return HttpError(429, "stub: rate limit reached, retry later",
                             {"Retry-After": str(self.retry_after)},
                             error_type="rate_limit_exceeded")
        if self.fault == "server-error" and faulty:
            return HttpError(500, "stub: internal server error")
        if self.fault == "bad-request" and faulty:
            return HttpError(400, "stub: bad request, this endpoint refuses the call",
                             error_type="invalid_request_error")
        out = self.inner.respond(request)
        if not faulty or not isinstance(out, Reply):
            return out
        if self.fault == "delay":
            return Reply(out.text, delay=out.delay + self.delay, finish_reason=out.finish_reason)
        return Reply(corrupt(out.text, self.fault), out.delay, out.finish_reason)


@register_policy("drip")
class DripPolicy(Policy):
    """Answers like ``inner`` but sends each body one byte every ``interval`` seconds.

    The answer's headers go out at once; the body trickles, so an HTTP client with a
    per-read timeout waits ``interval`` x body length in all. ``times`` dripping answers
    (``None``: every one), then plain ones.
    """

    name = "drip"

    def __init__(self, interval: float = 2.0, times: int | None = None,
                 inner: Policy | str = "echo") -> None:
        if not float(interval) > 0:
            raise PolicyError(f"drip interval must be a positive number of seconds, "
                              f"got {interval!r}")
        self.interval = float(interval)
        self.times = times
        self.inner = as_policy(inner)
        self._count = 0
        self._lock = threading.Lock()

    def respond(self, request: PolicyRequest) -> Outcome:
        """The inner outcome, dripped while drips remain."""
        with self._lock:
            dripping = self.times is None or self._count < self.times
            self._count += 1
        out = self.inner.respond(request)
        if not dripping or not isinstance(out, Reply):
            return out
        return Reply(out.text, out.delay, out.finish_reason, drip=self.interval)


def _faulty(fault: str) -> PolicyFactory:
    def factory(**options: Any) -> Policy:
        options = {"times": 1, "inner": "negotiator", **options}
        return FaultyPolicy(fault, **options)

    factory.__doc__ = (f"A :class:`FaultyPolicy` with fault {fault!r}, by default once and "
                       "then the rule-based negotiator.")
    return factory


def _always(fault: str) -> PolicyFactory:
    def factory(**options: Any) -> Policy:
        options = {"times": None, "inner": "echo", **options}
        return FaultyPolicy(fault, **options)

    factory.__doc__ = (f"A :class:`FaultyPolicy` with fault {fault!r} on every request "
                       "(text faults corrupt an echo of the request).")
    return factory


for _fault in FAULTS:
    if _fault != "delay":
        register_policy(f"faulty-{_fault}")(_faulty(_fault))
        register_policy(f"always-{_fault}")(_always(_fault))
register_policy("slow")(_faulty("delay"))
