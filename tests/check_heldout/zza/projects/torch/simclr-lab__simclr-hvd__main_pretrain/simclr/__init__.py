"""Minimal SimCLR implementation (pre-training only)."""
__version__ = "0.2.0"
