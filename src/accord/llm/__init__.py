"""accord.llm."""
