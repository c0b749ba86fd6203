"""Tests of ``pytest_rocmcompat.collectives``."""
