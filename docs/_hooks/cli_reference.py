"""MkDocs hook: the CLI reference page is generated from the typer app at build time.

A page containing the marker below gets it replaced by the Markdown that typer's own
documentation generator (``typer accord.cli.main utils docs``) renders from
``accord.cli.main:app``: every command and sub-command, recursively, with its usage,
arguments and options. Nothing on that page is written by hand, so it cannot drift from
the command line.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = "<!-- accord-cli-reference -->"

_cache: dict[str, str] = {}


def render_cli_reference() -> str:
    """Markdown for every ``accord`` command, headings one level below the page title."""
    if "text" in _cache:
        return _cache["text"]
    cmd = [sys.executable, "-m", "typer", "accord.cli.main", "utils", "docs", "--name", "accord"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise PluginError("could not generate the CLI reference with "
                          f"`{' '.join(cmd[1:])}` (is accord installed in this environment?):\n"
                          f"{proc.stderr.strip()}")
    _cache["text"] = _to_page(proc.stdout)
    return _cache["text"]


def _to_page(text: str) -> str:
    """typer's Markdown, adjusted for a page: headings one level down (the page has its
    own title), click's ``\\b`` verbatim markers dropped, and an epilog's indented example
    lines (``Examples:`` then ``  accord ...``) kept as a code block instead of being
    joined into one paragraph."""
    lines: list[str] = []
    fenced = False
    examples = False
    for line in text.strip().replace("\b", "").splitlines():
        if examples:
            if line.startswith("  ") and line.strip():
                lines.append(line[2:])
                continue
            lines.append("```")
            examples = False
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            line = "#" + line
        elif not fenced and line.strip() == "Examples:":
            lines += ["**Examples**:", "", "```bash"]
            examples = True
            continue
        lines.append(line)
    if examples:
        lines.append("```")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **kwargs: Any) -> str:
    """Replace the marker with the generated reference."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render_cli_reference())
