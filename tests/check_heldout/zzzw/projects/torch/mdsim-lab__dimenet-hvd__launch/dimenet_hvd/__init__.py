from .worker import train_worker  # noqa: F401
