"""From results to what is published: terminal summary, run report, JUnit properties, merged
tables, HTML, site, baselines and recommendations. Imports ``session`` and below; never ``running``.
"""
