"""Intent classification fine-tuning (internal)."""
__version__ = "0.4.1"
