__all__ = ["callbacks", "data", "gpu", "losses", "model"]
