"""``accord games plot`` over a real results store written by ``accord bench``."""

import json

from typer.testing import CliRunner

from accord.cli.main import app

CONFIG = """
name: games-plot
domain: games
scenarios: [prisoners-dilemma, stag-hunt]
agents:
  - [rational, random]
params:
  negotiation_rounds: [0, 1]
seeds: 3
"""


def test_games_plot_from_bench_store(tmp_path):
    cfg = tmp_path / "g.yaml"
    cfg.write_text(CONFIG)
    store = tmp_path / "g.db"
    runner = CliRunner()
    res = runner.invoke(app, ["bench", str(cfg), "--store", str(store), "--quiet"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "plots"
    res = runner.invoke(app, ["games", "plot", str(store), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["episodes"] == 12 and summary["cells"]
    for cell in summary["cells"]:
        png = out / cell["file"]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "summary.json").exists()
    bad = runner.invoke(app, ["games", "plot", str(tmp_path / "none.db")])
    assert bad.exit_code == 2
