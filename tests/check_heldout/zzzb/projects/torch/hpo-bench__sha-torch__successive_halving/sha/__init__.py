"""Successive halving over a small MLP search space, data-parallel per candidate."""
__version__ = "0.3.0"
