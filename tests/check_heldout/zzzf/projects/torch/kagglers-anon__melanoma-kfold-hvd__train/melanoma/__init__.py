"""Melanoma k-fold baseline (Horovod)."""
__version__ = "0.3.1"
