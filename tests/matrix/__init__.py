"""Tests of ``pytest_rocmcompat.matrix``."""
