"""lambbench: small harness for comparing large-batch optimizers."""
__version__ = "0.3.1"
