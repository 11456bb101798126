"""Agents: the one agent interface, agent specs and the registry of negotiation agents,
mediators and judges, classic concession strategies, and the LLM negotiator with its guards.

Import from the modules (``accord.agents.base``, ``accord.agents.spec``,
``accord.agents.registry``, ``accord.agents.concession``, ...); this package re-exports
nothing so that importing one agent never pulls in the LLM layer.
"""
