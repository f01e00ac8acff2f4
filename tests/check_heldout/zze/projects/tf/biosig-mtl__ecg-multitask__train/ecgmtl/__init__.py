__all__ = ["data", "distributed", "model", "metrics"]
