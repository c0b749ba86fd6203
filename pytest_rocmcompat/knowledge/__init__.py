"""What is known about stacks: known-bad rules and their engine, built-in checks, diagnoses and
sourced fact tables (wheel targets, declared pins, extension builds). Imports ``probe`` and below.
"""
