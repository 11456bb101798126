"""The OpenAI-compatible stub server and its reply policies (tests without a network).

``with StubServer("negotiator") as stub:`` serves real HTTP on 127.0.0.1; point any
OpenAI-compatible client at ``stub.base_url`` (accord: ``openai-api/stub/<policy>``
with ``STUB_BASE_URL`` and ``STUB_API_KEY``). The same policies answer in process for
the ``mock/<policy>`` provider. The generic policies (echo, fixed, scripted, faults) live
here; each domain ships its own rule-based party in ``accord/domains/<domain>/stub.py``,
registered through the ``accord.policies`` entry point group and found by name the first
time it is asked for.
"""

from accord.testing.stub.context import ContextLimitPolicy
from accord.testing.stub.policies import (
    FAULTS,
    POLICIES,
    DripPolicy,
    EchoPolicy,
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
from accord.testing.stub.server import LoggedRequest, StubServer
from accord.testing.stub.tokens import PrefixTracker, count_tokens, message_tokens, tokenize

__all__ = [
    "FAULTS",
    "POLICIES",
    "ContextLimitPolicy",
    "DripPolicy",
    "EchoPolicy",
    "FaultyPolicy",
    "FixedLatencyPolicy",
    "HttpError",
    "LoggedRequest",
    "Outcome",
    "Policy",
    "PolicyError",
    "PolicyRequest",
    "PrefixTracker",
    "Reply",
    "ScriptedPolicy",
    "StubServer",
    "corrupt",
    "count_tokens",
    "make_policy",
    "message_tokens",
    "register_policy",
    "tokenize",
]
