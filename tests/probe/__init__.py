"""Tests of ``pytest_rocmcompat.probe``."""
