"""emat: a small hook-based trainer with EMA weights."""
__version__ = "0.3.1"
