"""Keep secrets out of the results store (DESIGN.md: keys never reach stores or reports).

Three nets, applied by the driver to everything it writes:

* by key: a mapping entry whose key looks like a credential (``api_key``, ``token``,
  ``secret``, ``password``, ``*_API_KEY`` ...) has its value replaced;
* by shape: well-known key formats (``sk-...``, ``sk-ant-...``, ``ghp_...``, bearer
  headers) and ``key=value`` pairs inside agent spec strings are masked;
* by value: the current values of secret-looking environment variables are masked
  wherever they appear (an SDK error message may quote a key).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

#: what a redacted value is replaced with
MASK = "***"

_SECRET_KEY = re.compile(
    r"(?i)(^|[_\-.])(api[_\-]?key|apikey|secret|token|password|passwd|credentials?|auth)$")
_INLINE = re.compile(
    r"(?i)\b([A-Za-z0-9_]*(?:api[_\-]?key|secret|token|password|passwd))(\s*[=:]\s*)"
    r"([^\s&,;\"']+)")
_SHAPES = re.compile(
    r"\b(sk-ant-[A-Za-z0-9_\-]{8,}|sk-(?:proj-)?[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}|hf_[A-Za-z0-9]{20,})")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._\-]{8,}")


def is_secret_key(key: str) -> bool:
    """Whether a mapping key or variable name looks like it holds a credential."""
    return bool(_SECRET_KEY.search(key.strip()))


def _env_secrets() -> list[str]:
    vals = [v for k, v in os.environ.items() if is_secret_key(k) and len(v) >= 8]
    return sorted(set(vals), key=len, reverse=True)


def redact_text(text: str, env_values: list[str] | None = None) -> str:
    """Mask credentials inside free text (error messages, transcripts, spec strings)."""
    for val in _env_secrets() if env_values is None else env_values:
        if val in text:
            text = text.replace(val, MASK)
    text = _SHAPES.sub(MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _INLINE.sub(lambda m: m.group(1) + m.group(2) + MASK, text)


def redact(value: Any, env_values: list[str] | None = None) -> Any:
    """A copy of ``value`` (nested dicts, lists, strings) with credentials masked."""
    env = _env_secrets() if env_values is None else env_values
    if isinstance(value, Mapping):
        return {k: (MASK if isinstance(k, str) and is_secret_key(k) and v not in (None, "")
                    else redact(v, env)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, env) for v in value]
    if isinstance(value, str):
        return redact_text(value, env)
    return value


def env_secret_values() -> list[str]:
    """The secret-looking environment values to mask (computed once per batch of writes)."""
    return _env_secrets()
