"""accord.solvers."""
