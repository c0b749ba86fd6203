"""Tests of ``pytest_rocmcompat.running``."""
