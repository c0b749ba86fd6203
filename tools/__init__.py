"""Maintenance scripts of the project (not shipped): they regenerate committed data from public sources."""
