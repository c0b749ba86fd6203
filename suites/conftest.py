"""Shared fixtures of the bundled suites."""
