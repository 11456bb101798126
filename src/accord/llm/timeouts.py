"""The deadline of one LLM call attempt: a sane default per kind of endpoint.

A hosted API answers a negotiation turn in seconds; a model served on this machine's CPU
(the ``llamacpp/`` provider, or any OpenAI-compatible server on localhost such as Ollama,
llama.cpp's server or vLLM on a workstation) may need minutes to read a long prompt (a
6,934-token task-exchange prompt took 1,061 s on two loaded cores, issue 25). So without a
timeout from the user (an agent's ``timeout=``, ``--llm-timeout``, ``ACCORD_LLM_TIMEOUT``
or a bench config's ``llm.timeout``; any of these wins), a local endpoint gets
:data:`LOCAL_TIMEOUT` and every other one :data:`HOSTED_TIMEOUT`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from accord.llm.providers import Endpoint

#: seconds per attempt for hosted APIs (and the in-process mock provider)
HOSTED_TIMEOUT = 60.0
#: seconds per attempt for a server on this machine (CPU inference is slow)
LOCAL_TIMEOUT = 600.0
#: host names that mean "this machine"
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]"})


def is_local(endpoint: Endpoint) -> bool:
    """Whether ``endpoint`` is a model served on this machine (``llamacpp/`` or a base URL
    on localhost / a loopback address)."""
    if endpoint.provider == "llamacpp":
        return True
    if not endpoint.base_url:
        return False
    host = (urlsplit(endpoint.base_url).hostname or "").lower()
    return host in LOCAL_HOSTS or host.startswith("127.") or host.endswith(".localhost")


def default_timeout(endpoint: Endpoint) -> float:
    """The per-attempt deadline of ``endpoint`` when the user set none."""
    return LOCAL_TIMEOUT if is_local(endpoint) else HOSTED_TIMEOUT


__all__ = ["HOSTED_TIMEOUT", "LOCAL_HOSTS", "LOCAL_TIMEOUT", "default_timeout", "is_local"]
