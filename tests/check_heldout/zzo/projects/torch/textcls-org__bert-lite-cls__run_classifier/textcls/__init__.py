from .config import ClassifierConfig
from .trainer import Trainer

__all__ = ["ClassifierConfig", "Trainer"]
