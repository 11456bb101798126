"""Model strings and the provider registry (DESIGN.md, "LLM conventions").

=================================  ==========================================================
model string                       endpoint
=================================  ==========================================================
``openai/<model>``                 OpenAI; ``OPENAI_API_KEY``, optional ``OPENAI_BASE_URL``
``anthropic/<model>``              Anthropic; ``ANTHROPIC_API_KEY``, optional
                                   ``ANTHROPIC_BASE_URL``
``vllm/<model>``                   vLLM at ``VLLM_BASE_URL``; ``VLLM_API_KEY`` optional
``ollama/<model>``                 Ollama at ``OLLAMA_BASE_URL`` (default
                                   ``http://127.0.0.1:11434/v1``); no key
``openai-api/<name>/<model>``      any OpenAI-compatible endpoint at ``<NAME>_BASE_URL``
                                   with ``<NAME>_API_KEY`` (``<NAME>`` is ``name``
                                   upper-cased, non-alphanumerics as ``_``)
``llamacpp/<path>.gguf``           a local GGUF model, served by llama.cpp in this process
                                   (``accord[local]``; :mod:`accord.llm.local`); no key
``mock/<policy>``                  in process, answered by the stub policy ``<policy>``
=================================  ==========================================================

:data:`PROVIDERS` maps a provider name to a resolver ``(rest, model_string, env) ->
Endpoint``; add one with :func:`register_provider`, or from an installed package through
the ``accord.providers`` entry-point group (entry name: the provider; value: the resolver),
loaded the first time a model string names a provider that is not registered. Resolution
reads only the environment mapping it is given and never stores a key in the
:class:`Endpoint`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from accord.llm.errors import ConfigurationError, MissingAPIKeyError, UnknownProviderError

Api = Literal["openai", "anthropic", "mock"]


@dataclass(frozen=True)
class Endpoint:
    """A resolved model string: which API, where, which model, which key variable.

    ``key_env`` names the environment variable holding the key (``None``: no key);
    ``key_required`` says whether a missing key is an error. ``base_url`` is ``None``
    for the in-process ``mock`` provider. ``cache_url`` stands for the base URL in cache
    keys where that URL is not the endpoint's identity (``None``: :attr:`public_url`):
    a server this process started on a port chosen at random (``llamacpp/``) is the same
    endpoint in the next run.
    """

    provider: str
    model: str
    api: Api
    base_url: str | None
    key_env: str | None
    key_required: bool
    spec: str
    cache_url: str | None = None

    @property
    def limit_key(self) -> str:
        """What concurrency limits are keyed by: the base URL (``mock://`` for mocks)."""
        return self.base_url or f"mock://{self.model}"

    @property
    def public_url(self) -> str:
        """The base URL without credentials or query, safe to log and to store."""
        return sanitize_url(self.base_url) if self.base_url else f"mock://{self.model}"

    @property
    def key_url(self) -> str:
        """The base URL as the cache keys and records it: :attr:`cache_url`, else
        :attr:`public_url`."""
        return self.cache_url or self.public_url

    def api_key(self, env: Mapping[str, str]) -> str | None:
        """The key from ``env``; raises :class:`MissingAPIKeyError` if required and absent."""
        key = env.get(self.key_env, "").strip() if self.key_env else ""
        if not key and self.key_required and self.key_env:
            raise MissingAPIKeyError(self.key_env, self.spec)
        return key or None


@lru_cache(maxsize=256)
def sanitize_url(url: str) -> str:
    """``url`` without user info, query and fragment (they may carry credentials);
    memoised: every call's error path and log line names its endpoint this way."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


Resolver = Callable[[str, str, Mapping[str, str]], Endpoint]
PROVIDERS: dict[str, Resolver] = {}
"""Provider resolvers by name; see the module docstring."""


def register_provider(name: str) -> Callable[[Resolver], Resolver]:
    """Decorator registering a provider resolver under ``name``."""

    def deco(fn: Resolver) -> Resolver:
        PROVIDERS[name] = fn
        return fn

    return deco


#: entry-point group of provider resolvers from other packages
ENTRY_POINT_GROUP = "accord.providers"


def load_provider_entry_points() -> None:
    """Register the resolvers installed packages declare (names already taken are kept)."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in PROVIDERS:
            continue
        try:
            resolver = ep.load()
        except Exception as exc:  # a third-party module can fail in any way
            raise ConfigurationError(f"LLM provider {ep.name!r} (entry point {ep.value!r}) "
                                     f"failed to load: {type(exc).__name__}: {exc}") from exc
        if not callable(resolver):
            raise ConfigurationError(f"LLM provider {ep.name!r}: entry point {ep.value!r} is "
                                     "not a resolver (rest, model_string, env) -> Endpoint")
        PROVIDERS[ep.name] = resolver


def resolve_model(spec: str, env: Mapping[str, str]) -> Endpoint:
    """The :class:`Endpoint` for a model string such as ``openai/gpt-4.1-mini``."""
    provider, sep, rest = spec.partition("/")
    if provider not in PROVIDERS:
        load_provider_entry_points()
    if provider not in PROVIDERS:
        raise UnknownProviderError(provider if sep else spec, PROVIDERS, spec)
    if not rest:
        raise ConfigurationError(f"model string {spec!r} names no model after "
                                 f"'{provider}/'")
    return PROVIDERS[provider](rest, spec, env)


def _base_url(env: Mapping[str, str], var: str, spec: str, default: str | None = None) -> str:
    url = env.get(var, "").strip() or default
    if not url:
        raise ConfigurationError(f"model {spec!r} needs a base URL: set the environment "
                                 f"variable {var} (e.g. http://127.0.0.1:8000/v1)")
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(f"{var}={sanitize_url(url)!r} for model {spec!r} must start "
                                 "with http:// or https://")
    if "@" in url.split("://", 1)[1].split("/", 1)[0]:
        # the SDK would send these as Basic auth and drop the Bearer key without a word
        raise ConfigurationError(f"{var}={sanitize_url(url)!r} for model {spec!r} carries "
                                 "credentials (user:password@host); accord sends the API key "
                                 "as a Bearer token from the provider's *_API_KEY variable, so "
                                 "remove them from the URL and set the key there")
    return url.rstrip("/")


@register_provider("openai")
def _openai(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    url = _base_url(env, "OPENAI_BASE_URL", spec, "https://api.openai.com/v1")
    return Endpoint("openai", rest, "openai", url, "OPENAI_API_KEY", True, spec)


@register_provider("anthropic")
def _anthropic(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    url = _base_url(env, "ANTHROPIC_BASE_URL", spec, "https://api.anthropic.com")
    return Endpoint("anthropic", rest, "anthropic", url, "ANTHROPIC_API_KEY", True, spec)


@register_provider("vllm")
def _vllm(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    url = _base_url(env, "VLLM_BASE_URL", spec)
    return Endpoint("vllm", rest, "openai", url, "VLLM_API_KEY", False, spec)


@register_provider("ollama")
def _ollama(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    url = _base_url(env, "OLLAMA_BASE_URL", spec, "http://127.0.0.1:11434/v1")
    return Endpoint("ollama", rest, "openai", url, "OLLAMA_API_KEY", False, spec)


def env_prefix(name: str) -> str:
    """The environment-variable prefix of an ``openai-api`` endpoint name."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


@register_provider("openai-api")
def _openai_api(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    name, sep, model = rest.partition("/")
    if not sep or not name or not model:
        raise ConfigurationError(f"model string {spec!r} must look like "
                                 "openai-api/<name>/<model>, e.g. openai-api/together/llama-3")
    prefix = env_prefix(name)
    url = _base_url(env, f"{prefix}_BASE_URL", spec)
    return Endpoint(f"openai-api/{name}", model, "openai", url, f"{prefix}_API_KEY", True, spec)


@register_provider("llamacpp")
def _llamacpp(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    # starts llama.cpp's server in this process the first time (accord[local])
    from accord.llm.local import local_base_url, model_path

    url = local_base_url(model_path(rest, spec), env)
    # the server's port is new in every process: the cache keys the model file, not the URL
    return Endpoint("llamacpp", rest, "openai", url, None, False, spec,
                    cache_url="llamacpp://local")


@register_provider("mock")
def _mock(rest: str, spec: str, env: Mapping[str, str]) -> Endpoint:
    return Endpoint("mock", rest, "mock", None, None, False, spec)
