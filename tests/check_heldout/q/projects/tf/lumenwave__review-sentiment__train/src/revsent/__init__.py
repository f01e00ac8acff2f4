from .config import RunConfig  # noqa: F401
