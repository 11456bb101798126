"""accord.bench."""
