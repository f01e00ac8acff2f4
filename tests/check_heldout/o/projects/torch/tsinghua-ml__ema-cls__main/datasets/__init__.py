from .cifar import build_loaders  # noqa: F401
