"""Safe text and files, the lowest layer: escaping, redaction, atomic writes, bounded input
files, the cache store and the package's own paths. Imports nothing of the package above it.
"""
