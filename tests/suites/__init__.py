"""Tests of the bundled suites' helpers and the suites run end to end (``suites/``)."""
