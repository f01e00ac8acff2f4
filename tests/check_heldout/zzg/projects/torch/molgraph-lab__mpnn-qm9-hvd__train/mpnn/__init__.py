"""Message passing networks for molecular property regression."""
__version__ = "0.3.1"
