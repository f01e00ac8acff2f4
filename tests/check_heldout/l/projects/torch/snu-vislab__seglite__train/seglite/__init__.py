"""SegLite: small real-time semantic segmentation models."""

__version__ = "0.3.1"
