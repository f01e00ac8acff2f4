"""cil: small class-incremental learning toolkit (replay + growing head)."""
__version__ = "0.3.1"
