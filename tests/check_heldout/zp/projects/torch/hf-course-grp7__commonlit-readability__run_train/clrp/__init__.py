from .config import TrainConfig

__version__ = "0.3.0"
