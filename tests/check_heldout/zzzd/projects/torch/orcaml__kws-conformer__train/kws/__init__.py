from .model import TinyConformer  # noqa: F401
