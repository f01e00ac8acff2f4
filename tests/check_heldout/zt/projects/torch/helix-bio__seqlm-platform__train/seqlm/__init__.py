from .conf import compose  # noqa: F401
