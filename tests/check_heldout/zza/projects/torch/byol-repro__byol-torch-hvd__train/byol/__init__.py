from .config import TrainConfig
from .networks import BYOL

__all__ = ["TrainConfig", "BYOL"]
