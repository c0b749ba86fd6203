"""Built-in compatibility checks: pure functions over an Environment, run once per session.

Each check module exposes ``ID`` and ``check(env) -> list[Finding]``; :mod:`.registry`
runs them and compiles the findings into known-bad rules the engine already matches.
"""
