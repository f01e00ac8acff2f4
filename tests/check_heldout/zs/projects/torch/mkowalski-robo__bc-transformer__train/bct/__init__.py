"""Behaviour cloning with a small causal transformer policy."""
__version__ = "0.3.1"
