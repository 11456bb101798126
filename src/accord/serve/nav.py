"""The one header of accord's web app, for pages that are not rendered by
:mod:`accord.serve.app` (the play app mounted at ``/play``).

The header lives in one template, ``templates/_header.html.j2`` of this package, with its
stylesheet ``static/nav.css``; the served pages include it from their base template, and
a mounted app calls :func:`site_header` (``accord serve --play`` hands it to the play
app's templates as the global ``site_header``, see :func:`install`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markupsafe import Markup

#: where the play app is mounted under ``accord serve``
PLAY_MOUNT = "/play"


@lru_cache(maxsize=1)
def _template() -> Any:
    from accord.serve.app import environment

    return environment().get_template("_header.html.j2")


def site_header(root: str = "", play: bool = True, active: str = "play") -> Markup:
    """The header markup (with a link to its stylesheet) for a page whose site root is
    ``root`` (``""`` when accord serve is at the top of its host); ``active`` is
    ``results``, ``leaderboard`` or ``play``."""
    return Markup(_template().render(root=root.rstrip("/"), play=play, active=active,
                                     standalone=True, report=False))


def play_header(base: str) -> Markup:
    """:func:`site_header` for a page of the play app whose own root is ``base`` (the
    mount path, e.g. ``/play``): the site root is ``base`` without the mount."""
    base = base.rstrip("/")
    root = base[:-len(PLAY_MOUNT)] if base.endswith(PLAY_MOUNT) else base
    return site_header(root, play=True, active="play")


def install(mounted: Any) -> bool:
    """Give a mounted play app's templates the global ``site_header`` (its base template
    calls ``site_header(base)`` when defined); ``False`` when the app has no Jinja
    environment to give it to."""
    env = getattr(getattr(getattr(mounted, "state", None), "play", None), "env", None)
    if env is None or not hasattr(env, "globals"):
        return False
    env.globals["site_header"] = play_header
    return True


__all__ = ["PLAY_MOUNT", "install", "play_header", "site_header"]
