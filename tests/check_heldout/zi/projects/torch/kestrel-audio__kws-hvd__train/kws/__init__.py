"""Keyword spotting on precomputed log-mel features."""
__version__ = "0.3.1"
