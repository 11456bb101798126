"""The documentation site builds in strict mode, offline, with its generated pages.

Runs ``mkdocs build --strict`` (what a broken docstring, link or nav entry fails), then
checks the two generated pages against the code itself: the CLI reference lists every
command of the typer app, recursively, and the API reference shows rendered docstrings.
"""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.cli.main import command_tree

REPO = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")


def _command_paths() -> Iterator[str]:
    """``accord run``, ``accord dond download``, ...: every command path of the app."""
    for path, _ in command_tree():
        yield f"accord {path}"


def _text(page: Path) -> str:
    """The visible text of an HTML page, whitespace collapsed."""
    raw = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
    return " ".join(html.unescape(raw).split())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


@pytest.mark.slow
def test_cli_reference_lists_every_command(site: Path) -> None:
    names = [p for p, _ in command_tree() if " " not in p]
    assert len(names) >= 10, names  # the app itself, not an empty list
    page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for path in _command_paths():
        assert f"<code>{path}</code>" in page, f"{path!r} missing from the CLI reference"
    # options come from the app too, not from hand-written text
    assert "--agents" in page and "--cache-mode" in page


@pytest.mark.slow
def test_api_reference_renders_docstrings(site: Path) -> None:
    from accord.bench import load_config
    from accord.domains.base import register_domain
    from accord.llm import parse_retry_after

    for page, obj in (("domains", register_domain), ("llm", parse_retry_after),
                      ("bench", load_config)):
        text = _text(site / "api" / page / "index.html")
        first = inspect.getdoc(obj).splitlines()[0]  # type: ignore[union-attr]
        first = re.sub(r"``([^`]+)``", r"\1", first)  # inline code renders without backticks
        assert obj.__name__ in text
        assert first in text, f"docstring of {obj.__name__} not rendered on api/{page}"
    # Sphinx roles in docstrings are shown as code, never literally
    for api_page in (site / "api").rglob("index.html"):
        assert ":class:`" not in api_page.read_text(encoding="utf-8"), api_page


@pytest.mark.slow
def test_site_needs_no_external_fonts(site: Path) -> None:
    for page in site.rglob("*.html"):
        assert "fonts.googleapis.com" not in page.read_text(encoding="utf-8"), page
