__all__ = ["expr", "split", "model", "optim", "callbacks"]
