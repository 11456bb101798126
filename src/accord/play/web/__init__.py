"""Play in the browser: ``create_app(store, settings)`` is a Starlette app (see
:mod:`accord.play.web.app`) where a person negotiates against any agent spec."""

from __future__ import annotations

from accord.play.web.app import create_app
from accord.play.web.games import DOMAINS, Game, Games, PlayError, PlaySettings
from accord.play.web.seat import WebSeat

__all__ = ["DOMAINS", "Game", "Games", "PlayError", "PlaySettings", "WebSeat", "create_app"]
