"""The real-model tests: SmolLM2-135M-Instruct served by llama.cpp (xllamacpp) in process.

They need the GGUF (``python -m accord.testing.models fetch``) and ``accord[local]``.
Without them they skip and say how to get them; with ``ACCORD_REQUIRE_REAL_MODEL=1`` (set
by ``.ci/run``) a missing model is a failure instead, so CI cannot pass without running them.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from accord.testing.models import model_file

#: seconds one call may take: about 1 token/s on two loaded cores, prompts of ~1,000 tokens
CALL_TIMEOUT = 900.0


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2 GGUF file, or a skip (a failure under ACCORD_REQUIRE_REAL_MODEL=1)."""
    path = model_file()
    missing = []
    if not path.is_file():
        missing.append(f"no model at {path} (run: python -m accord.testing.models fetch)")
    if importlib.util.find_spec("xllamacpp") is None:
        missing.append("xllamacpp is not installed (pip install -e '.[local]')")
    if missing:
        if os.environ.get("ACCORD_REQUIRE_REAL_MODEL") == "1":
            pytest.fail("; ".join(missing))
        pytest.skip("; ".join(missing))
    return path
