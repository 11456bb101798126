"""``llamacpp/PATH.gguf``: a local model served by llama.cpp inside this process.

The optional extra ``accord[local]`` installs ``xllamacpp``, a prebuilt CPU build of
llama.cpp with its OpenAI-compatible HTTP server. The first time a model string names a
GGUF file, :func:`local_base_url` starts that server on a free port of 127.0.0.1 (one per
file and process, shared by every agent) and the model is then an ordinary
OpenAI-compatible endpoint: the same client, cache, retries, structured output
(``structured=json_schema|grammar``) and accounting as any other. The server stops when
the process ends. No key, no other server::

    accord run bargaining/buyer-seller --agents 'llm:llamacpp/model.gguf?structured=auto',boulware

Settings from the environment (read when the server starts):

``ACCORD_LLAMACPP_CTX``      context size in tokens (default 4096; the prompts of task
                             exchange need about 7,000)
``ACCORD_LLAMACPP_THREADS``  CPU threads (default: the CPUs this process may use)
``ACCORD_LLAMACPP_PARALLEL`` sequences decoded at once (default 1; each gets ctx/parallel)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord.llm.errors import ConfigurationError

#: context size of a started server unless ``ACCORD_LLAMACPP_CTX`` says otherwise
DEFAULT_CTX = 4096
_SERVERS: dict[str, tuple[Any, str]] = {}
_LOCK = threading.Lock()


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigurationError(f"{name}={raw[:20]!r} must be a positive whole number")
    return value


def model_path(rest: str, spec: str) -> Path:
    """The GGUF file a ``llamacpp/...`` model string names (checked to exist)."""
    path = Path(rest).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ConfigurationError(f"model {spec!r}: llamacpp/ takes the path of a .gguf file, "
                                 "e.g. llamacpp/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    if not path.is_file():
        raise ConfigurationError(f"model {spec!r}: no GGUF file at {path}")
    return path.resolve()


def local_base_url(path: Path, env: Mapping[str, str]) -> str:
    """The ``/v1`` base URL of the llama.cpp server for ``path``, started if needed."""
    key = str(path)
    with _LOCK:
        running = _SERVERS.get(key)
        if running is not None:
            return running[1]
        try:
            import xllamacpp
        except ImportError:
            raise ConfigurationError("llamacpp/ models need the llama.cpp server: pip install "
                                     "'accord[local]' (the xllamacpp wheel)") from None
        params = xllamacpp.CommonParams()
        params.model.path = key
        params.n_ctx = _int_env(env, "ACCORD_LLAMACPP_CTX", DEFAULT_CTX)
        params.n_parallel = _int_env(env, "ACCORD_LLAMACPP_PARALLEL", 1)
        threads = _int_env(env, "ACCORD_LLAMACPP_THREADS", len(os.sched_getaffinity(0)))
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # a free port, chosen by the server
        params.verbosity = 0
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:  # the C++ side reports load failures in many ways
            raise ConfigurationError(f"llama.cpp could not load {path}: "
                                     f"{type(exc).__name__}: {exc}") from None
        url = str(server.listening_address).rstrip("/") + "/v1"
        _SERVERS[key] = (server, url)
        return url


def stop_all() -> None:
    """Stop every server this process started (they also stop when it exits)."""
    with _LOCK:
        _SERVERS.clear()


__all__ = ["DEFAULT_CTX", "local_base_url", "model_path", "stop_all"]
