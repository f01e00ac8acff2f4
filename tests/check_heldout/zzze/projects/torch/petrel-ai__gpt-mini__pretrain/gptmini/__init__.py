from .model import GRULanguageModel
from .trainer import Trainer

__all__ = ["GRULanguageModel", "Trainer"]
