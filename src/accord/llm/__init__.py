"""accord.llm: model clients and everything that touches the network.

One async interface (:class:`LLMClient.complete`) over OpenAI-compatible endpoints,
Anthropic and in-process mock policies; per-endpoint concurrency limits; retries
that honour ``Retry-After``; an SQLite cache with record/replay; token and cost
accounting; and API-key redaction. See DESIGN.md, "LLM conventions".
"""

from accord.llm.accounting import UsageTotals, UsageTracker
from accord.llm.cache import CacheMode, CompletionCache, cache_key
from accord.llm.client import LLMClient, LLMRuntime
from accord.llm.errors import (
    AuthenticationError,
    CacheError,
    CacheMiss,
    ConfigurationError,
    EndpointUnreachableError,
    InvalidMessagesError,
    LLMError,
    LLMTimeoutError,
    MissingAPIKeyError,
    RateLimitedError,
    RequestError,
    ServerError,
    UnknownProviderError,
)
from accord.llm.prices import Price, PriceTable, PriceTableError, load_prices
from accord.llm.providers import PROVIDERS, Endpoint, register_provider, resolve_model
from accord.llm.redact import RedactingFilter, redact, register_secret
from accord.llm.retry import RetryPolicy, parse_retry_after
from accord.llm.types import CallScope, ChatMessage, Completion, GenerationConfig, Usage

__all__ = [
    "PROVIDERS",
    "AuthenticationError",
    "CacheError",
    "CacheMiss",
    "CacheMode",
    "CallScope",
    "ChatMessage",
    "Completion",
    "CompletionCache",
    "ConfigurationError",
    "Endpoint",
    "EndpointUnreachableError",
    "GenerationConfig",
    "InvalidMessagesError",
    "LLMClient",
    "LLMError",
    "LLMRuntime",
    "LLMTimeoutError",
    "MissingAPIKeyError",
    "Price",
    "PriceTable",
    "PriceTableError",
    "RateLimitedError",
    "RedactingFilter",
    "RequestError",
    "RetryPolicy",
    "ServerError",
    "UnknownProviderError",
    "Usage",
    "UsageTotals",
    "UsageTracker",
    "cache_key",
    "load_prices",
    "parse_retry_after",
    "redact",
    "register_provider",
    "register_secret",
    "resolve_model",
]
