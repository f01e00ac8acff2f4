"""cosmoflow-mini: a small re-implementation of the CosmoFlow benchmark for our allocation."""
__version__ = "0.3.1"
