"""robustcv: small helpers for adversarial training experiments."""
__version__ = "0.3.1"
