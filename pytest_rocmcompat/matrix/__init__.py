"""Matrix files: load and check the YAML (line numbers in every error), expand cells, locate
this machine's cell, cache the checked result, and ``lint`` (with ``--against``). Imports ``knowledge`` and below.
"""
