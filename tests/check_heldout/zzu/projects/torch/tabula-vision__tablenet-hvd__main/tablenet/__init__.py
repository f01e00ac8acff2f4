from .model import TableNet  # noqa: F401
