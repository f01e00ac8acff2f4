"""CRNN + CTC line recognizer (docscan-lab)."""
__version__ = "0.3.1"
