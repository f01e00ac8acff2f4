from .worker import train_worker

__all__ = ["train_worker"]
