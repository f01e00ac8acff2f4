"""conformer-lite: a compact CTC ASR recipe (internal)."""
__version__ = "0.3.1"
