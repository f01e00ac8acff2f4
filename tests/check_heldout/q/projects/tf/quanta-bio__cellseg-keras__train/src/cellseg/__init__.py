"""Nucleus segmentation for the imaging core."""
__version__ = "0.3.0"
