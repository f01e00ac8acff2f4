"""realsr: small real-world super-resolution toolkit."""
__version__ = "0.3.1"
