from .layers import FNO1d  # noqa: F401
