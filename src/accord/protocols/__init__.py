"""Protocols: explicit state machines over typed moves, and the engine that runs one episode.

Import from the modules (``accord.protocols.base``, ``accord.protocols.engine``,
``accord.protocols.alternating``, ``accord.protocols.negotiation``,
``accord.protocols.judge``); this package re-exports nothing.
"""
