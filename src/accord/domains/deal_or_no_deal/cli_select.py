"""Which datapoints an ``accord dond`` command works on: ``--selection``, ``--sample``,
``--hardest`` and ``--limit``, shared by ``stats``, ``play`` and ``meta``.

How they combine: ``--sample FILE`` (a path, or a file of the data folder) replaces the
selection and follows the seed's convention (one line = one datapoint, Alice = the
``<input>`` side), so it goes with ``--selection seed`` or none; otherwise ``--selection``
(default ``unique``) names the datapoints of the split. ``--hardest K`` then keeps the K
most difficult and of those the ones with an envy-free allocation
(:func:`accord.domains.deal_or_no_deal.seed_hardest`), and ``--limit N`` the first N.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from accord.cli import common as c

if TYPE_CHECKING:
    from accord.domains.deal_or_no_deal import Datapoint

HARDEST_HELP = ("the K most difficult datapoints (among those that survive Table 9's "
                "exclusions), then only those that admit an envy-free allocation (section 5.4)")


def selection_option() -> Any:
    """``--selection seed|unique``."""
    return typer.Option(None, "--selection", metavar="NAME", help="seed: seed 003's "
                        "datapoints (every other line, 526 on test.txt, Alice = the <input> "
                        "side); unique: the unique dialogues (545; the default without "
                        "--sample)")


def sample_option() -> Any:
    """``--sample FILE``."""
    return typer.Option(None, "--sample", metavar="FILE", help="only the lines of FILE "
                        "(a path, or a file of the data folder such as sample50.txt: the "
                        "seed's 50 datapoints), each one datapoint with Alice = its <input> "
                        "side; --hardest and --limit then apply")


def sample_file(sample: Path, data: str | None) -> Path:
    """``--sample FILE`` as given, else FILE in the data folder (``--sample sample50.txt``)."""
    from accord.domains.deal_or_no_deal.location import dataset_dir

    if sample.is_file():
        return sample
    there = dataset_dir(data) / sample
    if not sample.is_absolute() and there.is_file():
        return there
    raise c.fail(f"--sample {c.plain(sample)}: no such file (looked in the current folder and "
                f"in {c.plain(there.parent)})")


def select_points(data: str | None, split: str, hardest: int | None, limit: int | None,
            selection: str | None = None, sample: Path | None = None, *,
            in_split: bool = True) -> tuple[list[Datapoint], str]:
    """The selected datapoints and the selection's name (``seed``, ``unique``, ``sample``).

    ``--sample`` takes the seed's convention (one line = one datapoint), so it combines with
    ``--selection seed`` or none; ``in_split`` finds the sample's lines in the split file so
    the experiment runner can load them by id (``test/L7``).
    """
    from accord.core.names import unknown_name
    from accord.domains.deal_or_no_deal import DataFormatError, DataNotFoundError, load_selection
    from accord.domains.deal_or_no_deal.selection import SELECTIONS, load_sample, select

    if hardest is not None and hardest < 1:
        raise c.fail(f"--hardest must be at least 1, got {hardest}")
    if limit is not None and limit < 1:
        raise c.fail(f"--limit must be at least 1, got {limit}")
    if selection is not None and selection not in SELECTIONS:
        raise c.fail(unknown_name("selection", selection, SELECTIONS))
    if sample is not None and selection == "unique":
        raise c.fail("--sample takes one datapoint per line (Alice = the <input> side, the "
                    "seed's convention): use it without --selection unique")
    try:
        if sample is not None:
            pool = load_sample(sample_file(sample, data), data, split, in_split=in_split)
            name = "sample"
        else:
            name = selection or "unique"
            pool = load_selection(data, split, name)  # type: ignore[arg-type]
        return select(pool, hardest, limit), name
    except (DataNotFoundError, DataFormatError, ValueError, KeyError) as exc:
        raise c.fail(str(exc)) from exc
