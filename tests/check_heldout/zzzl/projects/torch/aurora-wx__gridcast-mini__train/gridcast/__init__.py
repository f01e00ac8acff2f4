"""gridcast: small autoregressive grid emulator (ERA5-like fields on a regular lat/lon grid)."""
__version__ = "0.3.1"
