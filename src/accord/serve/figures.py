"""The figure on an episode's transcript page, drawn by the episode's own domain.

Each domain may draw one (:meth:`accord.domains.Domain.episode_figure`: bargaining its
utility plane, task exchange the study's Figure 2, a plug-in whatever it likes); the web
app asks the installed domain named in the stored spec and shows nothing when there is
none, the domain is not installed, or drawing fails.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

log = logging.getLogger(__name__)


def episode_figure(key: str, spec: Mapping[str, Any], summary: Mapping[str, Any] | None,
                   events: Sequence[Mapping[str, Any]]) -> Markup | None:
    """The domain's figure of a stored episode as markup, or ``None``."""
    from accord.domains.base import get_domain

    name = spec.get("domain")
    if not isinstance(name, str):
        return None
    try:
        domain = get_domain(name)
    except KeyError:
        return None
    try:
        html = domain.episode_figure(key, spec, summary, events)
    except Exception as exc:  # a plug-in's drawing code can fail in any way
        log.warning("domain %s could not draw episode %s: %s: %s", name, key,
                    type(exc).__name__, exc)
        return None
    return None if html is None else Markup(html)


__all__ = ["episode_figure"]
