"""Prototypical networks for few-shot classification (lab re-implementation)."""
__version__ = "0.3.1"
