from .mlp import NeRFMLP
from .trainer import Trainer
