"""Tests of ``pytest_rocmcompat.report``."""
