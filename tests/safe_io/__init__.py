"""Tests of ``pytest_rocmcompat.safe_io``."""
