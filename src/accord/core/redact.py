"""One redaction pass for every way out: keys never reach logs, caches, stores or output.

Three nets, applied to text and to JSON-like values:

* by value: secrets registered by the LLM layer (:func:`register_secret`, the key each
  provider uses) and the values of secret-looking environment variables (``*_API_KEY``,
  ``*_TOKEN``, ``*SECRET*``, ``*PASSWORD*`` ...) are masked wherever they appear;
* by shape: well-known key formats (``sk-...``, ``sk-ant-...``, ``ghp_...``, ``hf_...``,
  ``AKIA...``), bearer/basic authorization values, passwords in URLs
  (``scheme://user:pw@host``) and ``key=value`` / ``"key": "value"`` pairs;
* by key: a mapping entry whose key looks like a credential has its value replaced.

Text holding no environment or registered secret and none of the trigger words is
returned untouched without running the regular expressions (the common case).
The environment is read once per :class:`Redactor` (:func:`redactor` makes a fresh one).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

#: what a redacted value is replaced with
MASK = "[REDACTED]"
#: shorter registered values are not treated as secrets (masking "abc" would garble text)
MIN_SECRET_LENGTH = 6
#: environment values shorter than this are not masked by value
MIN_ENV_SECRET_LENGTH = 8

_SECRET_KEY = re.compile(
    r"(?i)((^|[_\-.])(api[_\-]?key|apikey|token|password|passwd|credentials?|auth)$"
    r"|secret|private[_\-]?key|password)")
#: the patterns of masking by shape (key formats, passwords in URLs, authorization values,
#: ``key=value`` pairs), compiled by :func:`_shape_patterns` on their first use: only text
#: holding a trigger word needs them (compiling the four costs ~2 ms of every start-up)
_URL_USERINFO = r"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*:)([^@/\s]+)(@)"
_INLINE = (
    r"(?i)(api[_\-]?key|apikey|x-api-key|secret|token|password|passwd)(\"?\s*[=:]\s*\"?)"
    r"([^\s&,;\"'\]\[]{6,})")
_SHAPES = (
    r"\b(sk-ant-[A-Za-z0-9_\-]{8,}|sk-(?:proj-)?[A-Za-z0-9_\-]{12,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}|hf_[A-Za-z0-9]{20,})")
_AUTH = r"(?i)\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/=\-]{6,}"
#: lower-case substrings without which none of the patterns above can match
_TRIGGERS = ("key", "secret", "token", "passw", "credential", "auth", "sk-", "gh", "xox",
             "akia", "hf_", "bearer", "basic", "://")
#: each trigger behind one of its characters, the one rarest in records and transcripts:
#: a one-character test is a memchr (a fraction of a microsecond for 4 KiB), a 2-3
#: character substring scan costs ~3 ns a character; a missing character rules the
#: trigger out, so the test decides exactly as the scan alone would
_GATES = tuple((t, g) for t, g in zip(_TRIGGERS, "yckwdh-hxkfbb/", strict=True))
assert all(g in t for t, g in _GATES)
#: the same, as bytes (for text already in UTF-8)
_GATES_UTF8 = tuple((t.encode(), g.encode()) for t, g in _GATES)


@functools.cache
def _trigger_finder() -> Callable[[bytes], list[Any]] | None:
    """Every trigger word at once in one pass over lower-cased UTF-8: the leftmost-first
    Aho-Corasick automaton of ``ahocorasick_rs`` (the Rust ``aho-corasick`` crate, whose
    SIMD "Teddy" search reads a few KiB in well under a microsecond); it returns the
    matches, an empty list when there are none. ``None`` where the package is missing:
    then the gated substring tests (:data:`_GATES`) decide, the same answer, slower on
    long text (each present gate character costs a scan)."""
    try:
        import ahocorasick_rs
    except ImportError:  # pragma: no cover - a dependency (tests replace this function)
        return None
    automaton = ahocorasick_rs.BytesAhoCorasick(
        [t.encode() for t in _TRIGGERS], matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST)
    find: Callable[[bytes], list[Any]] = automaton.find_matches_as_indexes
    return find


def _has_trigger(low: bytes) -> bool:
    """Whether lower-cased UTF-8 ``low`` holds a trigger word (UTF-8 keeps ASCII bytes for
    ASCII characters only, so a byte match is a character match)."""
    find = _trigger_finder()
    if find is not None:
        return bool(find(low))
    return any(g in low and t in low for t, g in _GATES_UTF8)

_registered: set[str] = set()
_lock = threading.Lock()


@functools.cache
def _shape_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str],
                               re.Pattern[str]]:
    """The compiled patterns of masking by shape: (key formats, passwords in URLs,
    authorization values, ``key=value`` pairs)."""
    return (re.compile(_SHAPES), re.compile(_URL_USERINFO), re.compile(_AUTH),
            re.compile(_INLINE))


def is_secret_key(key: str) -> bool:
    """Whether a mapping key or variable name looks like it holds a credential."""
    return bool(_SECRET_KEY.search(key.strip()))


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret so every redaction masks it from now on."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(value)


def env_secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of secret-looking environment variables (8+ characters), longest first."""
    env = os.environ if env is None else env
    vals = {v for k, v in env.items() if is_secret_key(k) and len(v) >= MIN_ENV_SECRET_LENGTH}
    return sorted(vals, key=len, reverse=True)


class Redactor:
    """Masks credentials; holds the secret values to look for (read once)."""

    def __init__(self, env_values: list[str] | None = None,
                 extra: tuple[str, ...] | list[str] = ()) -> None:
        values = env_secret_values() if env_values is None else list(env_values)
        with _lock:
            values += list(_registered)
        values += [v for v in extra if v and len(v) >= MIN_SECRET_LENGTH]
        self.env = sorted(set(values), key=len, reverse=True)
        #: the secret values as UTF-8 (:meth:`untouched_utf8`)
        self._env_utf8 = tuple(v.encode("utf-8", "surrogatepass") for v in self.env)

    def _suspect(self, text: str) -> bool:
        """Whether ``text`` holds a trigger word (lower-cased): only then can a pattern match.
        One pass for all of them (:func:`_trigger_finder`); short text, and any text where
        that is missing, takes the substring tests, each skipped when its gate character is
        absent (far cheaper than one ``(?i)`` alternation)."""
        low = text.lower()
        if len(low) < 64:
            return any(g in low and t in low for t, g in _GATES)
        return _has_trigger(low.encode("utf-8", "surrogatepass"))

    def untouched(self, text: str) -> bool:
        """Whether every redaction leaves ``text`` as it is: it holds no secret value and no
        trigger word. Then :meth:`text` returns it unchanged, and so does :meth:`json` for
        a value whose JSON it is, or that a part of it is (``"\\0".join`` of several
        values' texts is untouched only if each part is: a secret or a trigger inside a
        part is inside the whole)."""
        return not self._suspect(text) and not any(v in text for v in self.env)

    def untouched_utf8(self, data: bytes) -> bool:
        """:meth:`untouched` of the text whose UTF-8 ``data`` is, read as bytes (the store
        checks the bytes it then compresses, without decoding them): a secret value is in
        the text exactly when its UTF-8 is in ``data``, and an ASCII text's lower-cased
        bytes are its lower-cased text's. Other text is decoded and checked as text
        (``str.lower`` folds more than ASCII)."""
        if any(v in data for v in self._env_utf8):
            return False
        if not data.isascii():
            return not self._suspect(data.decode("utf-8", "surrogatepass"))
        return not _has_trigger(data.lower())

    def text(self, text: str) -> str:
        """Mask credentials inside free text (errors, transcripts, spec strings)."""
        for val in self.env:
            if val in text:
                text = text.replace(val, MASK)
        if not self._suspect(text):
            return text
        shapes, userinfo, auth, inline = _shape_patterns()
        text = shapes.sub(MASK, text)
        text = userinfo.sub(lambda m: m.group(1) + MASK + m.group(3), text)
        text = auth.sub(lambda m: m.group(1) + MASK, text)
        return inline.sub(lambda m: m.group(1) + m.group(2) + (
            m.group(3) if m.group(3) == MASK else MASK), text)

    def value(self, value: Any) -> Any:
        """A copy of ``value`` (nested mappings, lists, strings) with credentials masked."""
        if isinstance(value, Mapping):
            return {k: (MASK if isinstance(k, str) and v not in (None, "") and is_secret_key(k)
                        and not isinstance(v, (bool, int, float)) else self.value(v))
                    for k, v in value.items()}
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
        contains a trigger word or a secret value.
        """
        if value is None:
            return None
        text = json.dumps(value, ensure_ascii=False, default=str, **dumps) if dumps else (
            json_text(value))
        if self.untouched(text):
            return text
        return json.dumps(self.value(value), ensure_ascii=False, default=str, **dumps)


def _make_encoder() -> Any:
    """The C encoder ``json.dumps(value, ensure_ascii=False, default=str)`` builds on every
    call (``None`` where the interpreter has no C accelerator)."""
    if c_make_encoder is None:  # pragma: no cover - CPython always has _json
        return None
    return c_make_encoder({}, str, encode_basestring, None, ": ", ", ", False, False, True)


#: one encoder per thread (its cycle markers are per call: never shared between threads)
_encoders = threading.local()


def json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, default=str)``, the same text, without
    building an encoder per call (the store encodes three values per episode)."""
    if isinstance(value, str) or c_make_encoder is None:  # dumps' own path for a string
        return json.dumps(value, ensure_ascii=False, default=str)
    enc = getattr(_encoders, "enc", None)
    if enc is None:
        enc = _encoders.enc = _make_encoder()
    try:
        return "".join(enc(value, 0))
    except BaseException:
        # the same C encoder as dumps raised what dumps raises; stopped midway it may
        # keep ids in its cycle markers: the next call gets a fresh one
        _encoders.enc = None
        raise


def redactor() -> Redactor:
    """A :class:`Redactor` over the current environment and the registered secrets."""
    return Redactor()


def redact_text(text: str, env_values: list[str] | None = None) -> str:
    """Mask credentials inside free text (reads the environment unless given values)."""
    return (redactor() if env_values is None else Redactor(env_values)).text(text)


def redact(value: Any, env_values: list[str] | None = None) -> Any:
    """A copy of ``value`` with credentials masked (reads the environment unless given)."""
    return (redactor() if env_values is None else Redactor(env_values)).value(value)


__all__ = [
    "MASK",
    "Redactor",
    "env_secret_values",
    "is_secret_key",
    "json_text",
    "redact",
    "redact_text",
    "redactor",
    "register_secret",
]
