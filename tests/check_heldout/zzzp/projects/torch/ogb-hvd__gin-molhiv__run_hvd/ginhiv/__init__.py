from .train_fn import train  # noqa: F401
