"""Provider backends behind :class:`accord.llm.client.LLMClient` (one per API)."""

from accord.llm.backends.base import Backend, RawReply, status_failure

__all__ = ["Backend", "RawReply", "status_failure"]
