"""accord.testing."""
