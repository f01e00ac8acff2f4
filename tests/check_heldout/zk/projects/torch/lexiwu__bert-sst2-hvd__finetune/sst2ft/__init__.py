"""SST-2 fine-tuning helpers."""
__version__ = "0.2.0"
