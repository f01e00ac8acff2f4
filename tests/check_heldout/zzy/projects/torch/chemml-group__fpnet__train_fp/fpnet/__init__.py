from .config import TrainConfig, load_config  # noqa: F401
