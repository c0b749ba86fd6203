"""Tests of ``pytest_rocmcompat.knowledge``."""
