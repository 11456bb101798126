"""The Deal-or-No-Deal dialogue ids, listed without importing the domain.

``accord scenarios`` asks each domain package's ``list_scenarios`` (see
:func:`accord.domains.list_domain_scenarios`). Without the data (the usual case: it is
not shipped) this only looks for the file; with it, the test split is parsed by the plain
line reader, never the agents, the LLM session or numpy.
"""

from __future__ import annotations

from accord.domains.deal_or_no_deal.location import DataNotFoundError, split_file

#: shown by ``accord scenarios`` when the data is not installed
scenarios_hint = ("data not found: run `accord dond download` or set ACCORD_DATA "
                  "to a folder holding dealornodeal/")


def list_scenarios() -> list[str]:
    """Ids of the unique test dialogues (empty when the data is not installed), as
    ``Domain.scenarios()`` returns them."""
    try:
        file = split_file(None, "test")
    except DataNotFoundError:
        return []
    from accord.domains.deal_or_no_deal.load import load_split

    return [d.id for d in load_split(file, file.stem if file.stem in ("test", "val")
                                     else "test")]
