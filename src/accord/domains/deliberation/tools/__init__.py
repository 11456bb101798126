"""Deterministic authoring tools for the deliberation databases (run once, output committed)."""
