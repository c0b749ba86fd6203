"""Run crash-prone tests in a fresh process with a time limit; the session survives."""
