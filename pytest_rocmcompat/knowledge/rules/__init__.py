"""Known-bad rules: the :class:`Rule` value, the engine that matches rules to a stack and to
tests, and failure signatures. Pure: no pytest hooks, no files.
"""
