"""Keeping API keys out of logs, caches, stores and error messages.

Keys come from the environment; every provider registers the key it uses with
:func:`register_secret`, and :func:`redact` replaces registered keys, keys found in
the environment (variables named ``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``), bearer
tokens and common key shapes (``sk-...``, ``sk-ant-...``) with ``[REDACTED]``.
:class:`RedactingFilter` applies the same to log records; it is installed on the
``accord.llm`` logger.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping

MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 6
"""Shorter values are not treated as secrets (masking ``abc`` everywhere would garble text)."""

_SECRET_ENV_RE = re.compile(r"(API_KEY|_TOKEN|_SECRET|_PASSWORD)$", re.I)
_PATTERNS = (
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{6,}"),
    re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_-]{12,}"),
    re.compile(r"(?i)((?:api[_-]?key|x-api-key|authorization)[\"']?\s*[:=]\s*[\"']?)"
               r"[A-Za-z0-9._~+/=-]{6,}"),
)
_registered: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret so :func:`redact` masks it from now on."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(value)


def env_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names mark them as secrets."""
    env = os.environ if env is None else env
    return [v for k, v in env.items() if _SECRET_ENV_RE.search(k) and len(v) >= MIN_SECRET_LENGTH]


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret and key-shaped token replaced by ``[REDACTED]``."""
    with _lock:
        known = set(_registered)
    known.update(s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH)
    known.update(env_secrets())
    for value in sorted(known, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    text = _PATTERNS[0].sub("Bearer " + MASK, text)
    text = _PATTERNS[1].sub(MASK, text)
    return _PATTERNS[2].sub(lambda m: m.group(1) + MASK, text)


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
