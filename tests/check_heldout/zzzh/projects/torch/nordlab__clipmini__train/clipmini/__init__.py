"""clipmini: a small CLIP-style two-tower trainer on precomputed image features."""
__version__ = "0.3.1"
