from .config import FTConfig, Stage  # noqa: F401
