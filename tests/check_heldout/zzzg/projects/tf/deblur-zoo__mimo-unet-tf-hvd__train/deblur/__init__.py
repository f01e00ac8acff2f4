from .config import TrainConfig  # noqa: F401
