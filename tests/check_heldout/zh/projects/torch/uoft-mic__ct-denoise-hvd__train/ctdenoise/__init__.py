from .config import TrainConfig
