from .config import TaggerConfig, load_config  # noqa: F401
