"""Keeping API keys out of logs, caches, stores and error messages.

Every provider registers the key it uses with :func:`register_secret`; :func:`redact`
masks registered keys, secret-looking environment values and key-shaped tokens with the
project's one redaction (:mod:`accord.core.redact`). :class:`RedactingFilter` applies the
same to log records; it is installed on the ``accord.llm`` logger.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from accord.core.redact import MASK, Redactor, register_secret


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret and key-shaped token replaced by ``[REDACTED]``."""
    return Redactor(extra=list(secrets)).text(text)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from the formatted message."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Replace the record's message by its redacted form; always keep the record."""
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the caller's bug; keep it visible
            return True
        clean = redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        return True


def get_logger(name: str = "accord.llm") -> logging.Logger:
    """The logger ``name`` with a :class:`RedactingFilter` attached (once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    return logger


__all__ = ["MASK", "RedactingFilter", "get_logger", "redact", "register_secret"]
