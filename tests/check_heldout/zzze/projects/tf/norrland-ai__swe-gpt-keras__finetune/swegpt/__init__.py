from .runtime import setup_runtime  # noqa: F401
