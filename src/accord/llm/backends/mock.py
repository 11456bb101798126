"""The in-process ``mock/<policy>`` provider: stub policies without HTTP.

The same policy objects (:mod:`accord.llm.policy`; accord's own are registered by
:mod:`accord.testing.stub` through the ``accord.policies`` entry point) that answer the HTTP
stub server answer here, with the same token accounting (stub tokenizer, cached prefix per
session) and the same error semantics (an :class:`HttpError` outcome raises what
the HTTP path would raise), so a test can swap ``mock/negotiator`` for
``openai-api/stub/negotiator`` and see the same behaviour minus the network.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping

from accord.llm.backends.base import Backend, RawReply, status_failure
from accord.llm.errors import RequestError
from accord.llm.policy import (
    HttpError,
    Policy,
    PolicyError,
    PolicyRequest,
    Reply,
    make_policy,
)
from accord.llm.providers import Endpoint
from accord.llm.retry import Transient
from accord.llm.tokens import PrefixTracker, count_tokens, message_tokens, truncate_tokens
from accord.llm.types import ChatMessage, GenerationConfig, Usage


class MockBackend(Backend):
    """Answers with a stub policy in process; delays are ``asyncio.sleep``."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, timeout: float,
                 policy: Policy | None = None) -> None:
        super().__init__(endpoint, api_key, timeout)
        try:
            self.policy = policy or make_policy(endpoint.model)
        except (KeyError, PolicyError) as exc:
            raise RequestError(endpoint.public_url, 404, str(exc).strip("'\"")) from exc
        self._index = 0
        self._prefix = PrefixTracker()

    async def send(self, messages: list[ChatMessage], config: GenerationConfig, *, model: str,
                   timeout: float, headers: Mapping[str, str]) -> RawReply:
        """Ask the policy; sleep its delay (bounded by ``timeout``)."""
        url = self.endpoint.public_url
        session = headers.get("X-Accord-Session")
        conversation = session or "h:" + hashlib.sha256(
            json.dumps(messages[:1], sort_keys=True).encode()).hexdigest()[:16]
        plain = tuple({"role": m["role"], "content": m["content"]} for m in messages)
        request = PolicyRequest(plain, model, config.key_data(), self._index,
                                conversation)
        self._index += 1
        try:
            outcome = self.policy.respond(request)
        except PolicyError as exc:
            raise RequestError(url, 400, str(exc)) from exc
        # a dripped body takes ~``drip`` seconds per byte of its text
        delay = outcome.delay + (len(outcome.text.encode()) * outcome.drip
                                 if isinstance(outcome, Reply) else 0.0)
        if delay > timeout:
            await asyncio.sleep(timeout)
            raise Transient("timeout", f"no answer within {timeout:g} s")
        if delay > 0:
            await asyncio.sleep(delay)
        if isinstance(outcome, HttpError):
            raise status_failure(url, outcome.status, outcome.message, outcome.headers,
                                 outcome.body)
        text, cut = outcome.text, False
        if config.max_tokens:
            text, cut = truncate_tokens(text, config.max_tokens)
        prompt = message_tokens(messages)  # type: ignore[arg-type]
        usage = Usage(len(prompt), count_tokens(text), self._prefix.observe(conversation, prompt))
        return RawReply(text, usage, "length" if cut else outcome.finish_reason)
