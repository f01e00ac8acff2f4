from .registry import Registry, MODELS, OPTIMIZERS  # noqa: F401
