"""Keep secrets out of the results store: the one redaction of :mod:`accord.core.redact`.

The driver passes everything it writes (config, specs, records, errors, trajectories)
through a :class:`~accord.core.redact.Redactor`.
"""

from __future__ import annotations

from accord.core.redact import (
    MASK,
    Redactor,
    env_secret_values,
    is_secret_key,
    redact,
    redact_text,
)

__all__ = ["MASK", "Redactor", "env_secret_values", "is_secret_key", "redact", "redact_text"]
