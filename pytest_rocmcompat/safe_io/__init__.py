"""safe_io."""
