"""Tests of ``pytest_rocmcompat.stack``."""
