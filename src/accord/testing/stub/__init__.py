"""The OpenAI-compatible stub server and its reply policies (tests without a network).

``with StubServer("negotiator") as stub:`` serves real HTTP on 127.0.0.1; point any
OpenAI-compatible client at ``stub.base_url`` (accord: ``openai-api/stub/<policy>``
with ``STUB_BASE_URL`` and ``STUB_API_KEY``). The same policies answer in process for
the ``mock/<policy>`` provider. See :mod:`accord.testing.stub.negotiator` for the
prompt-state contract the rule-based negotiator reads.
"""

from accord.testing.stub.deliberation import DeliberationPolicy  # noqa: F401  (registers it)
from accord.testing.stub.dond import DondPolicy  # noqa: F401  (registers the 'dond' policy)
from accord.testing.stub.games import GamesPolicy  # noqa: F401  (registers 'games', 'games-trusting')
from accord.testing.stub.negotiator import NegotiatorPolicy, parse_utility
from accord.testing.stub.policies import (
    FAULTS,
    POLICIES,
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
from accord.testing.stub.stagnation import StagnationPolicy  # noqa: F401  (registers it)
from accord.testing.stub.task_exchange import TaskExchangePolicy  # noqa: F401  (registers it)
from accord.testing.stub.tokens import PrefixTracker, count_tokens, message_tokens, tokenize

__all__ = [
    "FAULTS",
    "POLICIES",
    "EchoPolicy",
    "FaultyPolicy",
    "FixedLatencyPolicy",
    "HttpError",
    "LoggedRequest",
    "NegotiatorPolicy",
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
    "parse_utility",
    "register_policy",
    "tokenize",
]
