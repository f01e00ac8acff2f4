from .config import load_config  # noqa
