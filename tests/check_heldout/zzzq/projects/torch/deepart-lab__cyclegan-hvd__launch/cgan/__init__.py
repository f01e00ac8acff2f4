from .config import TrainConfig  # noqa
