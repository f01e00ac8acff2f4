"""Minimal DLRM for CTR prediction."""
__version__ = "0.2.0"
