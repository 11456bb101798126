"""Keep secrets out of the results store (DESIGN.md: keys never reach stores or reports).

Three nets, applied by the driver to everything it writes:

* by key: a mapping entry whose key looks like a credential (``api_key``, ``token``,
  ``secret``, ``password``, ``*_API_KEY`` ...) has its value replaced;
* by shape: well-known key formats (``sk-...``, ``sk-ant-...``, ``ghp_...``, bearer
  headers) and ``key=value`` / ``"key": "value"`` pairs inside text are masked;
* by value: the values of secret-looking environment variables are masked wherever
  they appear (an SDK error message may quote a key).

Text that contains none of the trigger words and no environment secret is returned
untouched without running the regular expressions (the common case for code agents).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

#: what a redacted value is replaced with
MASK = "***"

_SECRET_KEY = re.compile(
    r"(?i)((^|[_\-.])(api[_\-]?key|apikey|token|password|passwd|credentials?|auth)$"
    r"|secret|private[_\-]?key)")
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*:)([^@/\s]+)(@)")
_INLINE = re.compile(
    r"(?i)(api[_\-]?key|apikey|secret|token|password|passwd)(\"?\s*[=:]\s*\"?)"
    r"([^\s&,;\"']+)")
_SHAPES = re.compile(
    r"\b(sk-ant-[A-Za-z0-9_\-]{8,}|sk-(?:proj-)?[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}|hf_[A-Za-z0-9]{20,})")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._\-]{8,}")
#: lower-case substrings without which none of the patterns above can match
_TRIGGERS = ("key", "secret", "token", "passw", "credential", "auth", "sk-", "gh", "xox",
             "akia", "hf_", "bearer", "://")


def is_secret_key(key: str) -> bool:
    """Whether a mapping key or variable name looks like it holds a credential."""
    return bool(_SECRET_KEY.search(key.strip()))


def env_secret_values() -> list[str]:
    """Values of secret-looking environment variables (8+ characters), longest first."""
    vals = {v for k, v in os.environ.items() if is_secret_key(k) and len(v) >= 8}
    return sorted(vals, key=len, reverse=True)


class Redactor:
    """Masks credentials; holds the environment's secret values (read once)."""

    def __init__(self, env_values: list[str] | None = None) -> None:
        self.env = env_secret_values() if env_values is None else list(env_values)

    def _suspect(self, text: str) -> bool:
        low = text.lower()  # substring tests are far cheaper than one (?i) alternation
        return any(t in low for t in _TRIGGERS)

    def text(self, text: str) -> str:
        """Mask credentials inside free text (errors, transcripts, spec strings)."""
        for val in self.env:
            if val in text:
                text = text.replace(val, MASK)
        if not self._suspect(text):
            return text
        text = _SHAPES.sub(MASK, text)
        text = _URL_USERINFO.sub(lambda m: m.group(1) + MASK + m.group(3), text)
        text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
        return _INLINE.sub(lambda m: m.group(1) + m.group(2) + MASK, text)

    def value(self, value: Any) -> Any:
        """A copy of ``value`` (nested mappings, lists, strings) with credentials masked."""
        if isinstance(value, Mapping):
            return {k: (MASK if isinstance(k, str) and v not in (None, "") and is_secret_key(k)
                        else self.value(v)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def clean(self, value: Any) -> Any:
        """``value`` itself when its JSON form holds nothing suspect, else :meth:`value`."""
        text = json.dumps(value, ensure_ascii=False, default=str)
        if not self._suspect(text) and not any(v in text for v in self.env):
            return value
        return self.value(value)

    def json(self, value: Any, **dumps: Any) -> str | None:
        """``value`` as JSON text with credentials masked (``None`` stays ``None``).

        Fast path: serialise first and only walk the structure when the JSON text
        contains a trigger word or an environment secret.
        """
        if value is None:
            return None
        text = json.dumps(value, ensure_ascii=False, default=str, **dumps)
        if not self._suspect(text) and not any(v in text for v in self.env):
            return text
        return json.dumps(self.value(value), ensure_ascii=False, default=str, **dumps)


def redact_text(text: str, env_values: list[str] | None = None) -> str:
    """Mask credentials inside free text (reads the environment unless given values)."""
    return Redactor(env_values).text(text)


def redact(value: Any, env_values: list[str] | None = None) -> Any:
    """A copy of ``value`` with credentials masked (reads the environment unless given)."""
    return Redactor(env_values).value(value)
