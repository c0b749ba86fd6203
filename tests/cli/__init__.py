"""Tests of ``pytest_rocmcompat.cli`` and of the package as installed (wheel, console script)."""
