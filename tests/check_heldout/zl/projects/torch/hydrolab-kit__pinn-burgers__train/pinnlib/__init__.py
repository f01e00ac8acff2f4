"""Small helpers for physics-informed networks (Burgers, heat, Allen-Cahn)."""
__version__ = "0.3.1"
