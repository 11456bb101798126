"""A stub model with a context window: a prompt too long gets a real server's error.

``ContextLimitPolicy(context=512, server="llamacpp", inner="negotiator")`` answers like
``inner`` while the prompt (counted with the stub tokenizer,
:func:`~accord.llm.tokens.message_tokens`) fits ``context`` tokens, and otherwise with
the exact error body the named server sends (bodies taken from the servers' sources and,
for llama.cpp, from the ``xllamacpp`` server of ``tests/real_model``):

``openai``        HTTP 400, ``code: context_length_exceeded``
``llamacpp``      HTTP 400, ``type: exceed_context_size_error`` with ``n_ctx``/``n_prompt_tokens``
``llamacpp-old``  HTTP 400, "the request exceeds the available context size, try increasing it"
``vllm``          HTTP 400, "This model's maximum context length is N tokens. ..."
``anthropic``     HTTP 400, "prompt is too long: N tokens > M maximum"
"""

from __future__ import annotations

from typing import Any

from accord.llm.policy import (
    HttpError,
    Outcome,
    Policy,
    PolicyError,
    PolicyRequest,
    as_policy,
    register_policy,
)
from accord.llm.tokens import message_tokens

#: the servers whose error shape :class:`ContextLimitPolicy` can answer with
SERVERS = ("openai", "llamacpp", "llamacpp-old", "vllm", "anthropic")


def overflow_error(server: str, context: int, prompt: int) -> HttpError:
    """The error ``server`` answers a ``prompt``-token request with on a ``context``-token
    model (its own body shape, verbatim)."""
    body: dict[str, Any]
    if server == "openai":
        message = (f"This model's maximum context length is {context} tokens. However, your "
                   f"messages resulted in {prompt} tokens. Please reduce the length of the "
                   "messages.")
        body = {"error": {"message": message, "type": "invalid_request_error",
                          "param": "messages", "code": "context_length_exceeded"}}
    elif server == "llamacpp":
        message = (f"request ({prompt} tokens) exceeds the available context size "
                   f"({context} tokens), try increasing it")
        body = {"error": {"code": 400, "message": message, "type": "exceed_context_size_error",
                          "n_prompt_tokens": prompt, "n_ctx": context}}
    elif server == "llamacpp-old":
        message = "the request exceeds the available context size, try increasing it"
        body = {"error": {"code": 400, "message": message,
                          "type": "exceed_context_size_error"}}
    elif server == "vllm":
        message = (f"This model's maximum context length is {context} tokens. However, you "
                   f"requested {prompt + 64} tokens ({prompt} in the messages, 64 in the "
                   "completion). Please reduce the length of the messages or completion.")
        body = {"object": "error", "message": message, "type": "BadRequestError",
                "param": None, "code": 400}
    elif server == "anthropic":
        message = f"prompt is too long: {prompt} tokens > {context} maximum"
        body = {"type": "error", "error": {"type": "invalid_request_error",
                                           "message": message}}
    else:
        raise PolicyError(f"unknown server {server!r}; one of {', '.join(SERVERS)}")
    return HttpError(400, message, error_type="invalid_request_error", body=body)


@register_policy("context-limit")
class ContextLimitPolicy(Policy):
    """``inner``'s answer while the prompt fits ``context`` stub tokens, else ``server``'s
    context-overflow error."""

    name = "context-limit"

    def __init__(self, context: int = 512, server: str = "llamacpp",
                 inner: Policy | str = "echo") -> None:
        if server not in SERVERS:
            raise PolicyError(f"unknown server {server!r}; one of {', '.join(SERVERS)}")
        self.context, self.server = int(context), server
        self.inner = as_policy(inner)
        #: the prompt sizes seen, in order (what a history window keeps them under)
        self.prompts: list[int] = []

    def respond(self, request: PolicyRequest) -> Outcome:
        """The overflow error for a prompt over the context, else the inner answer."""
        size = len(message_tokens(request.messages))
        self.prompts.append(size)
        if size > self.context:
            return overflow_error(self.server, self.context, size)
        return self.inner.respond(request)


__all__ = ["SERVERS", "ContextLimitPolicy", "overflow_error"]
