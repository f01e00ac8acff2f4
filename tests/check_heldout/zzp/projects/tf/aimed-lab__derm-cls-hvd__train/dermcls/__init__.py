from .settings import Settings  # noqa: F401
