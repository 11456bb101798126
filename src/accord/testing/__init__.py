"""Shipped test helpers: protocol conformance checks and the OpenAI-compatible stub server
with scripted, rule-based and faulty policies (real HTTP on 127.0.0.1)."""

from accord.testing.conformance import (
    ChaosAgent,
    ConformanceError,
    ConformanceReport,
    check_protocol,
)
from accord.testing.stub import (
    FaultyPolicy,
    FixedLatencyPolicy,
    HttpError,
    Policy,
    Reply,
    ScriptedPolicy,
    StubServer,
    make_policy,
    register_policy,
)

__all__ = [
    "ChaosAgent",
    "ConformanceError",
    "ConformanceReport",
    "FaultyPolicy",
    "FixedLatencyPolicy",
    "HttpError",
    "Policy",
    "Reply",
    "ScriptedPolicy",
    "StubServer",
    "check_protocol",
    "make_policy",
    "register_policy",
]
