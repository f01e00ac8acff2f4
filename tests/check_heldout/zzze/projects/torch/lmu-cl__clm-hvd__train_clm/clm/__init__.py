from .config import Config, parse_config  # noqa: F401
