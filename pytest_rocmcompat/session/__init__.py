"""One pytest session: its state, options, markers' effects, fixtures, rules reaching tests,
classification, results, JUnit finishing, interrupts and the rootdir guard. Imports ``matrix`` and below.
"""
