"""Keyword spotting training library."""
