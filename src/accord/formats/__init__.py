"""Importers of the field's files: one reader per format behind one interface.

``accord import FORMAT PATH`` writes accord scenario YAML files; ``FORMAT:PATH`` works
wherever a bargaining scenario is named (``accord run genius:dir``, ``accord analyze``,
a bench spec's ``scenarios:``). Built-in formats: ``genius`` (Genius XML),
``geniusweb`` (GeniusWeb JSON) and ``negotiationarena`` (NegotiationArena's buy-sell and
trading games); other packages add formats through the ``accord.formats`` entry-point
group or :func:`register_format`.

Not scenario formats, so not in the registry: NegotiationArena logs become episodes of a
store (:mod:`accord.formats.negotiationarena_log`, ``accord import negotiationarena-log``)
and the seed-001 authors' game pickles become deliberation instances
(:mod:`accord.formats.seed001`, ``accord deliberation import``).
"""

from __future__ import annotations

from accord.formats.base import FormatError, Imported, Importer
from accord.formats.registry import (
    formats,
    get_format,
    import_path,
    register_format,
    split_target,
)
from accord.formats.write import scenario_yaml, write_scenario

__all__ = ["FormatError", "Imported", "Importer", "formats", "get_format", "import_path",
           "register_format", "scenario_yaml", "split_target", "write_scenario"]
