"""SlowFast-lite: a small two-pathway video network for quick Kinetics experiments."""
__version__ = "0.3.1"
