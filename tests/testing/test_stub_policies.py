"""Stub policies: registry, scripted, fixed latency, and every fault."""

from __future__ import annotations

import json

import pytest

from accord.testing.stub import (
    FAULTS,
    POLICIES,
    FaultyPolicy,
    FixedLatencyPolicy,
    HttpError,
    Outcome,
    Policy,
    PolicyError,
    PolicyRequest,
    Reply,
    ScriptedPolicy,
    corrupt,
    make_policy,
    register_policy,
)

REQ = PolicyRequest(({"role": "user", "content": "hello"},), "m")
GOOD = '<CONSIDER>x</CONSIDER>\n<REJECT/>\n<PROPOSAL>{"price": 20}</PROPOSAL>'


def test_registry_builds_and_extends() -> None:
    make_policy("echo")  # importing the policies registers the negotiator too
    assert {"echo", "scripted", "fixed-latency", "faulty", "negotiator", "slow"} <= set(POLICIES)
    with pytest.raises(KeyError, match="known policies"):
        make_policy("no-such-policy")
    with pytest.raises(PolicyError, match="cannot be built"):
        make_policy("echo", bogus=1)

    @register_policy("test-constant")
    class Constant(Policy):
        def respond(self, request: PolicyRequest) -> Outcome:
            return Reply("constant")

    try:
        assert make_policy("test-constant").respond(REQ) == Reply("constant")
        with pytest.raises(ValueError, match="already registered"):
            register_policy("test-constant")(lambda: Constant())
    finally:
        POLICIES.pop("test-constant")


def test_scripted_in_order_cycling_and_exhaustion() -> None:
    once = ScriptedPolicy(["a", HttpError(500, "boom")])
    assert once.respond(REQ) == Reply("a")
    assert isinstance(once.respond(REQ), HttpError)
    exhausted = once.respond(REQ)
    assert isinstance(exhausted, HttpError) and exhausted.status == 400
    assert "exhausted" in exhausted.message
    cycling = ScriptedPolicy(["a", "b"], cycle=True)
    assert [cycling.respond(REQ).text for _ in range(5)] == ["a", "b", "a", "b", "a"]  # type: ignore[union-attr]
    with pytest.raises(PolicyError):
        ScriptedPolicy([])


def test_fixed_latency_wraps_inner() -> None:
    assert FixedLatencyPolicy(0.25).respond(REQ).delay == 0.25
    inner = FixedLatencyPolicy(0.1, inner="echo").respond(REQ)
    assert inner == Reply("hello", delay=0.1)
    err = FixedLatencyPolicy(0.1, inner=ScriptedPolicy([HttpError(500, "x")])).respond(REQ)
    assert isinstance(err, HttpError) and err.delay == 0.1


def test_text_faults() -> None:
    assert corrupt(GOOD, "malformed") == 'x {"price": 20}'
    assert corrupt(GOOD, "unclosed").endswith('<PROPOSAL>{"price": 20}')
    assert corrupt("<CONSIDER>x</CONSIDER><ACCEPT/>", "unclosed") == "<CONSIDER>x<ACCEPT/>"
    assert corrupt("<ACCEPT/>", "unclosed") == "<ACCEPT>"
    bad = corrupt(GOOD, "invalid-json").split("<PROPOSAL>")[1].split("</PROPOSAL>")[0]
    with pytest.raises(json.JSONDecodeError):
        json.loads(bad)
    assert "<PROPOSAL>" in corrupt("<ACCEPT/>", "invalid-json")
    extra = corrupt(GOOD, "unknown-fields").split("<PROPOSAL>")[1].split("</PROPOSAL>")[0]
    assert json.loads(extra) == {"price": 20, "surprise": "gift"}
    assert corrupt("plain", "malformed") == "plain"
    with pytest.raises(PolicyError):
        corrupt(GOOD, "rate-limit")


def test_faulty_policy_counts_then_recovers() -> None:
    limited = FaultyPolicy("rate-limit", times=2, retry_after=3, inner=ScriptedPolicy([GOOD],
                                                                                      cycle=True))
    first = limited.respond(REQ)
    assert isinstance(first, HttpError) and first.status == 429
    assert first.headers == {"Retry-After": "3"}
    assert isinstance(limited.respond(REQ), HttpError)
    assert limited.respond(REQ) == Reply(GOOD)
    always = FaultyPolicy("server-error")
    assert all(isinstance(always.respond(REQ), HttpError) for _ in range(3))
    slow = FaultyPolicy("delay", delay=0.5, inner="echo").respond(REQ)
    assert slow == Reply("hello", delay=0.5)
    with pytest.raises(PolicyError, match="known faults"):
        FaultyPolicy("explode")
    assert set(FAULTS) >= {"malformed", "unclosed", "invalid-json", "unknown-fields",
                           "rate-limit", "server-error", "delay"}
    shortcut = make_policy("faulty-unknown-fields", inner=ScriptedPolicy([GOOD], cycle=True))
    assert "surprise" in shortcut.respond(REQ).text  # type: ignore[union-attr]
    assert shortcut.respond(REQ) == Reply(GOOD)  # once by default


def test_bad_request_fault_and_always_policies() -> None:
    once = make_policy("faulty-bad-request", inner=ScriptedPolicy([GOOD], cycle=True))
    first = once.respond(REQ)
    assert isinstance(first, HttpError) and first.status == 400
    assert first.error_type == "invalid_request_error"
    assert once.respond(REQ) == Reply(GOOD)
    for name, status in (("always-bad-request", 400), ("always-server-error", 500),
                         ("always-rate-limit", 429)):
        always = make_policy(name)
        outs = [always.respond(REQ) for _ in range(3)]
        assert all(isinstance(o, HttpError) and o.status == status for o in outs), name
    garbage = make_policy("always-malformed")
    texts = [garbage.respond(REQ) for _ in range(3)]
    assert all(isinstance(t, Reply) and "<" not in t.text for t in texts)


def test_drip_policy_marks_replies_then_stops_dripping() -> None:
    from accord.testing.stub import DripPolicy, PolicyRequest

    policy = DripPolicy(0.25, times=1, inner=ScriptedPolicy(["a", "b"]))
    request = PolicyRequest(({"role": "user", "content": "hi"},), "m", {}, 0, "c")
    first, second = policy.respond(request), policy.respond(request)
    assert isinstance(first, Reply) and first.text == "a" and first.drip == 0.25
    assert isinstance(second, Reply) and second.text == "b" and second.drip == 0.0
    with pytest.raises(PolicyError, match="drip interval must be a positive"):
        DripPolicy(0)
    assert isinstance(make_policy("drip"), DripPolicy)
