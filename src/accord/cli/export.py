"""``accord export``: stored episodes as chat training data (see :mod:`accord.bench.export`)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from accord.cli import common as c

EXPORT_EXAMPLES = c.example(
    "accord export runs/demo.db --format sft --out sft.jsonl",
    "accord export runs/forks.db --format preference --out pairs.jsonl")


def export_command(
    store: Path = typer.Argument(..., metavar="STORE", help="Results store, e.g. runs/demo.db."),
    fmt: str = typer.Option("sft", "--format", "-f", metavar="sft|preference", help="sft: one "
                            "chat per party and episode; preference: pairs from forks "
                            "(same prefix, replies ranked by the party's final value)."),
    out: Path | None = c.out_option("Write the JSON lines to this file (default: stdout)."),
    run: str | None = typer.Option(None, "--run", help="One run of the store (default: all)."),
    data: Path | None = c.data_option(),
) -> None:
    """Write stored episodes as chat training examples, each party's own view only.

    Every example is what an LLM agent in that seat was shown (the protocol's projection
    for that party: never another party's private values) and what it replied; no model
    is called. JSON lines in the conventions of Hugging Face datasets and TRL.
    """
    import json

    from accord.bench.export import FORMATS, preference_pairs, sft_examples
    from accord.bench.store import Store, StoreError
    from accord.core.redact import redactor

    if fmt not in FORMATS:
        raise c.fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    try:
        st = Store.open_readonly(store)
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    with st:
        if run is not None and run not in {r["name"] for r in st.runs()}:
            raise c.fail(f"no run {run!r} in {store}")
        rows = st.episodes(run)

        def events(row: object) -> list[dict[str, object]]:
            text = st.trajectory(row.run, row.id) or ""  # type: ignore[attr-defined]
            return [json.loads(line) for line in text.splitlines() if line.strip()]

        make = sft_examples if fmt == "sft" else preference_pairs
        clean = redactor().clean
        sink = out.open("w", encoding="utf-8") if out is not None else sys.stdout
        n = 0
        try:
            for example in make(rows, events, None if data is None else str(data)):
                sink.write(json.dumps(clean(example), ensure_ascii=False) + "\n")
                n += 1
        finally:
            if out is not None:
                sink.close()
    what = "chats" if fmt == "sft" else "preference pairs"
    where = f" to {c.plain(out)}" if out is not None else ""
    hint = ("" if n or fmt == "sft" else
            "; preference pairs come from forks: accord fork STORE EPISODE --at ROUND ... "
            "--save STORE")
    c.console(stderr=True).print(f"wrote {n} {what}{where} from {len(rows)} stored "
                                 f"episodes{hint}")
