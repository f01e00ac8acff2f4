"""CosmoFlow-mini: 3D CNN regression of cosmological parameters from N-body density cubes."""
__version__ = "0.3.1"
