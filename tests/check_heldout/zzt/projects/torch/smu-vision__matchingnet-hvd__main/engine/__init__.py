from .distributed import init_distributed
from .trainer import Trainer
