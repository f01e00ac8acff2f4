from .kfood import build_loaders  # noqa: F401
