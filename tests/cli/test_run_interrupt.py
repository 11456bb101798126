"""``accord run``: Ctrl-C while an agent moves ends the command with a sentence and exit 130.

(Ctrl-C at a person's own prompt ends the episode as their quit: tests/play/test_terminal.py.)
"""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains import get_domain

runner = CliRunner()


def test_ctrl_c_during_the_episode_is_a_sentence_and_exit_130(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    async def interrupted(self: Any, spec: Any, ctx: Any) -> Any:
        raise KeyboardInterrupt  # what asyncio.run raises after its SIGINT handler cancels

    monkeypatch.setattr(type(get_domain("bargaining")), "run_episode", interrupted)
    out = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", "boulware,boulware",
                              "--out", str(out)])
    assert res.exit_code == 130
    assert "interrupted: Ctrl-C stopped the episode before it ended; nothing was recorded" \
        in " ".join(res.output.split())
    assert "Traceback" not in res.output and not out.exists()
