"""safe_io"""
