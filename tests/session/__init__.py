"""Tests of ``pytest_rocmcompat.session`` and the plugin end to end (plugin.py, markers, outcomes)."""
