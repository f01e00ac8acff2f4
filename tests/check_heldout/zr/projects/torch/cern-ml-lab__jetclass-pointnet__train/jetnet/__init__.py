"""jetnet: small point-cloud taggers for JetClass-style jet samples."""
__version__ = "0.3.1"
