"""LLM agents of this domain: agents, prompts and reply parsing."""
